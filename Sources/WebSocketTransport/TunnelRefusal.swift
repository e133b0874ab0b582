/// The answer to a `CONNECT` request. libwebsockets 4.1.6 turns such a request into a
/// raw socket (its tunnel support) before the server sees the request, so the answer is
/// a 405 written as raw bytes, and the connection is closed: no tunnel is served.
enum TunnelRefusal {
    /// The refusal, as it is logged and counted.
    static let refusal = RequestRefusal(
        405, .method, "CONNECT is not served", headers: [(name: "allow", value: "GET, HEAD, POST")])

    /// The whole response on the wire: status line, headers and the JSON body.
    static let bytes: [UInt8] = {
        let response = refusal.response
        let headers =
            [("content-type", response.contentType), ("content-length", "\(response.body.count)")]
            + response.headers + [("connection", "close")]
        let head = headers.map { "\($0.0): \($0.1)\r\n" }.joined()
        return Array("HTTP/1.1 405 \(HTTPStatus.reasonPhrase(405))\r\n\(head)\r\n".utf8) + response.body
    }()
}
