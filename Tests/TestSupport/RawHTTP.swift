import Foundation

/// A minimal HTTP/1.1 exchange over `RawSocket`, enough to check status and body.
package struct RawHTTPResponse {
    package var status: Int
    package var headers: String
    package var body: String

    /// Sends one request with `Connection: close` (from `source`, see `RawSocket`) and
    /// reads the whole response.
    package static func fetch(
        port: Int, method: String = "GET", path: String, body: String? = nil, headers: [String] = [],
        source: String? = nil
    ) throws -> RawHTTPResponse {
        let socket = try RawSocket(port: port, source: source)
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for header in headers { request += header + "\r\n" }
        if let body { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        request += "\r\n" + (body ?? "")
        try socket.send(Array(request.utf8))
        let head = String(decoding: try socket.read(until: Array("\r\n\r\n".utf8)), as: UTF8.self)
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        let lengthLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
        let length = lengthLine.flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
        // A HEAD answer and a 304 have no body whatever their Content-Length (RFC 9112 §6.3):
        // read what the server sends before it closes, which must be nothing.
        let bodiless = method == "HEAD" || status == 304
        let bodyBytes = try length.flatMap { bodiless ? nil : try socket.read(exactly: $0) } ?? socket.readToEnd()
        return RawHTTPResponse(status: status, headers: head, body: String(decoding: bodyBytes, as: UTF8.self))
    }

    /// The value of header `name` (case-insensitive), if present.
    package func header(_ name: String) -> String? {
        let prefix = name.lowercased() + ":"
        return headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix(prefix) }.map {
            $0.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        }
    }
}
