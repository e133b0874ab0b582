/// An HTTP request received on the server's port (not an upgrade).
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The path without the query, e.g. `/v1/devices/veh-1`.
    public var path: String
    /// The decoded query arguments.
    public var query: [String: String]
    /// `Authorization`, if sent.
    public var authorization: String?
    /// `If-None-Match`, if sent (several header lines joined with commas).
    public var ifNoneMatch: String?
    /// The peer's address.
    public var remoteAddress: String
    /// The request body (POST), bounded by the server's body limit.
    public var body: [UInt8]

    /// A request with the given parts.
    public init(
        method: String, path: String, query: [String: String] = [:], authorization: String? = nil,
        ifNoneMatch: String? = nil, remoteAddress: String = "", body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.authorization = authorization
        self.ifNoneMatch = ifNoneMatch
        self.remoteAddress = remoteAddress
        self.body = body
    }
}

/// An HTTP response: status, content type, extra headers and body.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200 or 404.
    public var status: Int
    /// The `Content-Type` header.
    public var contentType: String
    /// Extra headers, e.g. `("cache-control", "no-store")`.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// A response with the given parts.
    public init(status: Int, contentType: String, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// A JSON response of `json` (already encoded).
    public static func json(_ status: Int, _ json: String) -> HTTPResponse {
        HTTPResponse(
            status: status, contentType: "application/json", headers: [("cache-control", "no-store")],
            body: Array(json.utf8))
    }

    /// A plain-text response.
    public static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8")
        -> HTTPResponse
    {
        HTTPResponse(
            status: status, contentType: contentType, headers: [("cache-control", "no-store")], body: Array(text.utf8))
    }
}

/// Whether to accept a WebSocket upgrade, and if not, the HTTP status to refuse it with.
public enum UpgradeDecision: Sendable, Equatable {
    case accept
    case reject(status: Int)
}

/// What a server does with its traffic. The transport calls it; the application
/// implements it.
public protocol WebSocketServerDelegate: Sendable {
    /// Decides an upgrade. Called on the service thread: it must return at once.
    func decideUpgrade(_ request: UpgradeRequest) -> UpgradeDecision
    /// Opens one accepted connection, on the service thread (it must return at once):
    /// the handler of its messages, or nil to close it with 1000 after what it queued.
    /// A message's task is cancelled when the connection closes.
    func open(_ connection: WebSocketConnection) -> sending (any MessageHandler)?
    /// Answers one HTTP request.
    func respond(to request: HTTPRequest) async -> HTTPResponse
}
