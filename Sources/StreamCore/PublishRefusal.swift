import LocstreamProtocol

/// Why a publish was refused before it reached the broker, and when to try again.
public struct PublishRefusal: Equatable, Sendable {
    /// The reason, as the `publish_refused_total` label names it.
    public enum Reason: String, CaseIterable, Sendable {
        /// The identity publishes faster than `--publish-rate` allows.
        case rateLimited = "rate_limited"
        /// The table of identities is full of ones publishing right now.
        case identitiesFull = "identities_full"
    }

    /// Why.
    public var reason: Reason
    /// Seconds after which the same publish may succeed (HTTP `Retry-After`).
    public var retryAfterSeconds: Int
    /// What was wrong, in words.
    public var message: String

    /// The refusal as a `rate_limited` error of the `publish` op.
    public var error: ProtocolError {
        ProtocolError(.rateLimited, message, failedOp: "publish")
    }
}
