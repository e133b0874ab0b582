/// The standard reason phrases of HTTP status codes (RFC 9110 §15, RFC 6585 and RFC 4918
/// for 428, 429, 431, 507 and 511), for the status lines the server writes.
/// libwebsockets 4.1.6 knows only some of them and leaves the others empty
/// (`HTTP/1.1 202 `).
enum HTTPStatus {
    /// The reason phrase of `status`; "Unknown" for a code no standard names.
    static func reasonPhrase(_ status: Int) -> String {
        phrases[status] ?? "Unknown"
    }

    /// `head` (a response head whose first line is `HTTP/x.y NNN …\r\n`) with that first line
    /// ending in the standard reason phrase of NNN; any other head is returned unchanged.
    static func withReasonPhrase(_ head: [UInt8]) -> [UInt8] {
        let crlf: [UInt8] = [0x0D, 0x0A]
        guard let end = head.indices.first(where: { head[$0...].starts(with: crlf) }) else { return head }
        let parts = head[..<end].split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let status = Int(String(decoding: parts[1], as: UTF8.self)) else { return head }
        let line = Array(parts[0]) + [0x20] + Array(parts[1]) + [0x20] + Array(reasonPhrase(status).utf8)
        return line + head[end...]
    }

    private static let phrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
        205: "Reset Content", 206: "Partial Content",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required",
        408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
        413: "Content Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        417: "Expectation Failed", 421: "Misdirected Request", 422: "Unprocessable Content",
        426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests",
        431: "Request Header Fields Too Large",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported", 507: "Insufficient Storage",
        511: "Network Authentication Required",
    ]
}
