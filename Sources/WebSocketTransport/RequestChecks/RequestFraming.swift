/// Where a request's body ends, decided once from its head (RFC 7230 §3.3.3), and
/// the checks every request passes before the application sees it: version, `Host`,
/// target, `Content-Length`, `Transfer-Encoding`, header lengths.
///
/// A request whose body length is not one clear `Content-Length` is refused, and the
/// connection closed, so no byte of it can be read as the start of another request.
public enum RequestFraming {
    /// The largest `Content-Length` value parsed (a longer digit string is refused).
    static let maxDigits = 15

    /// The body length of `head`, or the refusal. `bodyLimit` is the largest body accepted.
    public static func bodyLength(of head: RequestHead, bodyLimit: Int) -> Result<Int, RequestRefusal> {
        do throws(RequestRefusal) {
            try checkLengths(head)  // first: a cut target also loses the version after it
            try checkLine(head)
            try checkHost(head)
            return .success(try contentLength(head, bodyLimit: bodyLimit))
        } catch {
            return .failure(error)
        }
    }

    /// The request line: HTTP/1.0 or 1.1, and an origin-form target (`/…`).
    static func checkLine(_ head: RequestHead) throws(RequestRefusal) {
        guard let version = head.version, version == "HTTP/1.1" || version == "HTTP/1.0" else {
            throw RequestRefusal(505, .version, "only HTTP/1.0 and HTTP/1.1 are served")
        }
        guard head.target.hasPrefix("/") else {
            throw RequestRefusal(400, .target, "the request target must be a path starting with /")
        }
    }

    /// `Host`: exactly one in HTTP/1.1, at most one in HTTP/1.0 (RFC 7230 §5.4).
    static func checkHost(_ head: RequestHead) throws(RequestRefusal) {
        let hosts = head.values("host")
        if hosts.count > 1 { throw RequestRefusal(400, .host, "more than one Host header") }
        if hosts.isEmpty, head.isHTTP11 { throw RequestRefusal(400, .host, "HTTP/1.1 requires a Host header") }
    }

    /// A header that libwebsockets cut at its limit cannot be trusted: 414 or 431.
    static func checkLengths(_ head: RequestHead) throws(RequestRefusal) {
        guard let name = head.truncated.first else { return }
        if name == "uri" { throw RequestRefusal(414, .headerTooLong, "the request target is too long") }
        throw RequestRefusal(431, .headerTooLong, "header \(name) is too long")
    }

    /// The one body length: `Transfer-Encoding` is refused (411 alone, 400 beside a
    /// `Content-Length`: a smuggling attempt), `Content-Length` must be plain digits and
    /// agree with itself, and a body-carrying method without it gets 411.
    static func contentLength(_ head: RequestHead, bodyLimit: Int) throws(RequestRefusal) -> Int {
        let lengths = head.values("content-length")
        if !head.values("transfer-encoding").isEmpty {
            if !lengths.isEmpty {
                throw RequestRefusal(
                    400, .transferEncoding, "Content-Length and Transfer-Encoding together are refused")
            }
            throw RequestRefusal(
                411, .transferEncoding, "Transfer-Encoding is not accepted in requests; send Content-Length")
        }
        guard let first = lengths.first else {
            if ["POST", "PUT", "PATCH"].contains(head.method) {
                throw RequestRefusal(411, .lengthRequired, "a \(head.method) request needs Content-Length")
            }
            return 0
        }
        guard let length = digits(first), lengths.allSatisfy({ digits($0) == length }) else {
            throw RequestRefusal(400, .contentLength, "Content-Length must be one non-negative decimal number")
        }
        guard length <= bodyLimit else {
            throw RequestRefusal(413, .bodyTooLarge, "request body over \(bodyLimit) bytes")
        }
        return length
    }

    /// The value of a string of 1 to `maxDigits` ASCII digits between optional blanks
    /// (lws puts a space before a repeated header's value), else nil.
    static func digits(_ text: String) -> Int? {
        var value = 0
        var count = 0
        let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        for byte in text.utf8.drop(while: isBlank).reversed().drop(while: isBlank).reversed() {
            guard byte >= 0x30, byte <= 0x39, count < maxDigits else { return nil }
            value = value * 10 + Int(byte - 0x30)
            count += 1
        }
        return count > 0 ? value : nil
    }
}
