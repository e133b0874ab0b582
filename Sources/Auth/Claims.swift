import Foundation

/// What a verified token says about its holder, and the access checks built on it.
///
/// Rights are deny-by-default: a missing `devices` or `publish` list allows nothing, and a
/// missing `areas` is `false`. Patterns are globs (see `GlobPattern`); `*` alone allows
/// every device.
public struct Claims: Sendable, Hashable {
    /// `sub`: the client id.
    public let subject: String
    /// `exp` in Unix seconds, exactly as the token says: the token is refused from this
    /// instant on (plus the verifier's leeway).
    public let expirySeconds: Int64
    /// `nbf` in Unix seconds, when present: the token is refused before it (minus the leeway).
    public let notBeforeSeconds: Int64?
    /// `iat` in Unix seconds, when present: when the token was issued.
    public let issuedAtSeconds: Int64?
    /// `devices`: the devices this client may subscribe to.
    public let subscribable: PatternSet
    /// `areas`: whether this client may use area subscriptions.
    public let areas: Bool
    /// `publish`: the devices this client may publish locations for.
    public let publishable: PatternSet

    /// The `devices` patterns as written.
    public var devicePatterns: [GlobPattern] { subscribable.patterns }
    /// The `publish` patterns as written.
    public var publishPatterns: [GlobPattern] { publishable.patterns }

    /// `exp` as a `Date` (for display; computations use `expirySeconds`).
    public var expiresAt: Date { Date(timeIntervalSince1970: TimeInterval(expirySeconds)) }

    /// Claims as given; `verify` makes them from a token, and tests can make them directly.
    public init(
        subject: String, expirySeconds: Int64, notBeforeSeconds: Int64? = nil, issuedAtSeconds: Int64? = nil,
        devicePatterns: [String] = [], areas: Bool = false, publishPatterns: [String] = []
    ) {
        self.subject = subject
        self.expirySeconds = expirySeconds
        self.notBeforeSeconds = notBeforeSeconds
        self.issuedAtSeconds = issuedAtSeconds
        subscribable = PatternSet(devicePatterns)
        self.areas = areas
        publishable = PatternSet(publishPatterns)
    }

    /// Claims expiring at `expiresAt` (rounded down to whole seconds), for tests and callers
    /// that hold a `Date`.
    public init(
        subject: String, expiresAt: Date, devicePatterns: [String] = [], areas: Bool = false,
        publishPatterns: [String] = []
    ) {
        self.init(
            subject: subject, expirySeconds: ExpiryMaths.unixSeconds(of: expiresAt), devicePatterns: devicePatterns,
            areas: areas, publishPatterns: publishPatterns)
    }

    /// The time from `now` until `exp`, negative once it has passed, clamped to ±100 years.
    public func timeLeft(at now: Date) -> Duration {
        ExpiryMaths.timeLeft(until: expirySeconds, now: now)
    }

    /// Whether this client may subscribe to `device`.
    public func maySubscribe(device: String) -> Bool {
        subscribable.matches(device)
    }

    /// Whether this client may publish locations for `device`.
    public func mayPublish(device: String) -> Bool {
        publishable.matches(device)
    }

    /// Whether this client may use area subscriptions (the `areas` claim).
    public var mayUseAreas: Bool { areas }
}
