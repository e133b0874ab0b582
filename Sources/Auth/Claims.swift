import Foundation

/// What a verified token says about its holder, and the access checks built on it.
///
/// Rights are deny-by-default: a missing `devices` or `publish` list allows nothing, and a
/// missing `areas` is `false`. Patterns are globs (see `GlobPattern`); `*` alone allows
/// every device.
public struct Claims: Sendable, Hashable {
    /// `sub`: the client id.
    public let subject: String
    /// `exp`: the token is refused from this instant on (plus the verifier's leeway).
    public let expiresAt: Date
    /// `nbf`: the token is refused before this instant (minus the leeway), when present.
    public let notBefore: Date?
    /// `iat`: when the token was issued, when present.
    public let issuedAt: Date?
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

    /// Claims as given; `verify` makes them from a token, and tests can make them directly.
    public init(
        subject: String, expiresAt: Date, notBefore: Date? = nil, issuedAt: Date? = nil,
        devicePatterns: [String] = [], areas: Bool = false, publishPatterns: [String] = []
    ) {
        self.subject = subject
        self.expiresAt = expiresAt
        self.notBefore = notBefore
        self.issuedAt = issuedAt
        subscribable = PatternSet(devicePatterns)
        self.areas = areas
        publishable = PatternSet(publishPatterns)
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
