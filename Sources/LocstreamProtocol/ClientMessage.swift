/// A frame a client sends to the server.
public enum ClientMessage: Sendable, Equatable {
    /// Start or switch the connection's subscription.
    case subscribe(SubscribeRequest)
    /// Stop the current subscription.
    case unsubscribe
    /// Publish 1 to 1000 locations, all or nothing; `ack` asks for a `published` reply.
    case publish([Location], ack: Bool)
    /// Application-level ping; `t`, when present, is a JSON number echoed in the `pong`.
    case ping(t: JSONValue?)
    /// Authenticate, or refresh the token of an authenticated connection.
    case auth(token: String)

    /// The `op` name of this message on the wire.
    public var op: String {
        switch self {
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .publish: "publish"
        case .ping: "ping"
        case .auth: "auth"
        }
    }
}
