/// The parts of a request head the transport checks, as libwebsockets parsed them.
/// Every header is the list of its occurrences (one entry per header line), so a
/// repeated header is visible. Only plain Swift values: it can be unit-tested and fuzzed.
public struct RequestHead: Sendable, Equatable {
    /// `GET`, `POST`, `HEAD`, …
    public var method: String
    /// The request target as parsed, e.g. `/v1/stream?token=…` or `http://x/healthz`.
    public var target: String
    /// The version from the request line, e.g. `HTTP/1.1`; nil when there was none.
    public var version: String?
    /// Header occurrences by lower-cased name (`host`, `content-length`, `transfer-encoding`, …).
    public var headers: [String: [String]]
    /// Names of headers (or `uri`) that libwebsockets cut at its per-header limit.
    public var truncated: [String]

    /// A head with the given parts.
    public init(
        method: String, target: String, version: String?, headers: [String: [String]] = [:], truncated: [String] = []
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.truncated = truncated
    }

    /// Every occurrence of header `name` (lower case).
    public func values(_ name: String) -> [String] { headers[name] ?? [] }

    /// True for `HTTP/1.1` (where `Host` is required and connections persist).
    var isHTTP11: Bool { version == "HTTP/1.1" }
}
