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
    public let devicePatterns: [GlobPattern]
    /// `areas`: whether this client may use area subscriptions.
    public let areas: Bool
    /// `publish`: the devices this client may publish locations for.
    public let publishPatterns: [GlobPattern]

    /// Claims as given; `verify` makes them from a token, and tests can make them directly.
    public init(
        subject: String, expiresAt: Date, notBefore: Date? = nil, issuedAt: Date? = nil,
        devicePatterns: [String] = [], areas: Bool = false, publishPatterns: [String] = []
    ) {
        self.subject = subject
        self.expiresAt = expiresAt
        self.notBefore = notBefore
        self.issuedAt = issuedAt
        self.devicePatterns = devicePatterns.map(GlobPattern.init)
        self.areas = areas
        self.publishPatterns = publishPatterns.map(GlobPattern.init)
    }

    /// Whether this client may subscribe to `device`.
    public func maySubscribe(device: String) -> Bool {
        Self.any(of: devicePatterns, matches: device)
    }

    /// Whether this client may publish locations for `device`.
    public func mayPublish(device: String) -> Bool {
        Self.any(of: publishPatterns, matches: device)
    }

    /// Whether this client may use area subscriptions (the `areas` claim).
    public var mayUseAreas: Bool { areas }

    /// Whether one of `patterns` matches `device`; the id's bytes are read once.
    private static func any(of patterns: [GlobPattern], matches device: String) -> Bool {
        guard !patterns.isEmpty else { return false }
        var device = device
        return device.withUTF8 { bytes in patterns.contains { $0.matches(bytes: bytes) } }
    }
}
