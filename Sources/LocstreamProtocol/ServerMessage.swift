/// Frames the server sends, encoded as compact JSON bytes ready for the wire.
public enum ServerMessage: Sendable, Equatable {
    /// The first frame on every connection: `{"op":"welcome","conn":…,"node":…,"proto":1}`.
    case welcome(conn: String, node: String)
    /// Reply to a successful `auth`: the token's `sub` and its `exp` in Unix seconds.
    case authed(client: String, exp: Int64)
    /// The subscription `sub` is live; `snapshot` frames precede the live ones.
    case subscribed(sub: String, restarted: Bool, snapshot: Int)
    /// A location for the subscription `sub`. The server's hot path sends
    /// `LocationFrame.prefix(sub:) + EncodedLocation.body` instead; this case is for clients
    /// decoding frames and for tests.
    case loc(sub: String, location: Location)
    /// (Area subscriptions only) the device left the area.
    case leave(sub: String, device: String)
    /// The subscription ended.
    case unsubscribed(sub: String)
    /// Reply to a `publish` that asked for `ack`.
    case published(count: Int)
    /// Reply to `ping`, echoing its `t`; `t` is omitted when nil.
    case pong(t: JSONValue?)
    /// A request failed: `code`, `message`, and `failed_op` when set.
    case error(ProtocolError)
}
