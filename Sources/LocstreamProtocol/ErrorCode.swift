/// The `code` of an `error` frame, exactly as PROTOCOL.md spells it on the wire.
public enum ErrorCode: String, Sendable, CaseIterable {
    /// The message is not JSON (NaN and Infinity are not JSON).
    case badJSON = "bad_json"
    /// Not an object, `op` missing or not a string, or a field missing, mistyped or out of range.
    case badRequest = "bad_request"
    /// `op` is a string this protocol does not define.
    case unknownOp = "unknown_op"
    /// No valid token, a failed `auth`, or the token is expiring.
    case unauthorized
    /// The token does not allow this subscribe or publish.
    case forbidden
    /// The current `sub` id was reused with another target.
    case subIdReused = "sub_id_reused"
    /// More than 1000 devices or locations in one request.
    case tooLarge = "too_large"
    /// The client publishes faster than it is allowed.
    case rateLimited = "rate_limited"
    /// `unsubscribe` with no subscription.
    case notSubscribed = "not_subscribed"
    /// The server failed (for example, the broker is unreachable).
    case `internal`
}
