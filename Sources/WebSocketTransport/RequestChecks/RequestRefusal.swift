/// Why the transport refuses a request before the application sees it: the HTTP
/// status, a metric label, and a message for the response body and the log.
public struct RequestRefusal: Error, Sendable, Equatable {
    /// The metric label of a refusal (`locstream_http_rejected_total{reason}`).
    public enum Reason: String, Sendable, CaseIterable {
        case version
        case host
        case target
        case contentLength = "content_length"
        case transferEncoding = "transfer_encoding"
        case bodyTooLarge = "body_too_large"
        case lengthRequired = "length_required"
        case headerTooLong = "header_too_long"
        case handshake
        case pipelining
        case method
    }

    public var status: Int
    public var reason: Reason
    public var message: String
    /// Extra response headers, e.g. `Sec-WebSocket-Version: 13` with a 426.
    public var headers: [(name: String, value: String)]

    /// A refusal with `status`, `reason` and `message`.
    public init(_ status: Int, _ reason: Reason, _ message: String, headers: [(name: String, value: String)] = []) {
        self.status = status
        self.reason = reason
        self.message = message
        self.headers = headers
    }

    public static func == (lhs: RequestRefusal, rhs: RequestRefusal) -> Bool {
        lhs.status == rhs.status && lhs.reason == rhs.reason && lhs.message == rhs.message
            && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}
