import Foundation

/// Everything a server answers to `bytes`, sent in one write on a fresh connection,
/// up to the server's close (or `timeout` seconds): for requests no HTTP client
/// would send, such as pipelined or smuggled ones.
package func rawExchange(port: Int, _ bytes: String, timeout: Int = 5) throws -> String {
    let socket = try RawSocket(port: port, timeout: timeout)
    try socket.send(Array(bytes.utf8))
    return String(decoding: try socket.readToEnd(), as: UTF8.self)
}

/// The status codes of the responses in `text`, in order.
package func statuses(_ text: String) -> [Int] {
    text.components(separatedBy: "HTTP/1.").dropFirst().compactMap { Int($0.dropFirst(2).prefix(3)) }
}

/// A WebSocket upgrade request for `/v1/stream` with `headers` after the request line
/// (nothing is added: each test states every header it sends).
package func upgradeRequest(_ headers: [String]) -> String {
    "GET /v1/stream HTTP/1.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
}
