/// What a peer sent with its WebSocket upgrade: enough to route, authenticate and log.
public struct UpgradeRequest: Sendable, Equatable {
    /// The peer's address, e.g. `127.0.0.1`.
    public var remoteAddress: String
    /// The request path without the query, e.g. `/v1/stream`.
    public var path: String
    /// The decoded query arguments, e.g. `["token": "…"]`.
    public var query: [String: String]
    /// `Authorization`, if sent.
    public var authorization: String?
    /// `Origin`, if sent.
    public var origin: String?
    /// `Sec-WebSocket-Protocol`, if sent.
    public var subprotocol: String?

    /// A request with the given parts.
    public init(
        remoteAddress: String = "", path: String = "/", query: [String: String] = [:],
        authorization: String? = nil, origin: String? = nil, subprotocol: String? = nil
    ) {
        self.remoteAddress = remoteAddress
        self.path = path
        self.query = query
        self.authorization = authorization
        self.origin = origin
        self.subprotocol = subprotocol
    }
}
