import LocstreamProtocol

/// Why a publish was refused as a whole (nothing was stored), and when to try again.
public struct PublishRefusal: Equatable, Sendable {
    /// The reason, as the `publish_refused_total` label names it.
    public enum Reason: String, CaseIterable, Sendable {
        /// The identity publishes faster than `--publish-rate` allows.
        case rateLimited = "rate_limited"
        /// The table of identities is full of ones publishing right now.
        case identitiesFull = "identities_full"
        /// New devices past `--max-devices`.
        case maxDevices = "max_devices"
    }

    /// Why.
    public var reason: Reason
    /// Seconds after which the same publish may succeed (HTTP `Retry-After`); nil when
    /// waiting is no cure.
    public var retryAfterSeconds: Int?
    /// What was wrong, in words.
    public var message: String

    /// The refusal as an error of the `publish` op: `rate_limited`, or `internal` at the
    /// device limit (PROTOCOL.md has no code for a full server).
    public var error: ProtocolError {
        ProtocolError(reason == .maxDevices ? .internal : .rateLimited, message, failedOp: "publish")
    }
}
