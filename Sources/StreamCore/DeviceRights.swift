import Auth

/// Which devices a connection may be shown: every device (no authentication, or a
/// `devices` claim holding `*`), or those its token's `devices` globs match.
///
/// An area subscription carries it, so the hub's fan-out skips a device the token may
/// not see, for locations and leaves alike; the common `*` costs one nil check.
public struct DeviceRights: Sendable {
    /// The claims whose `devices` globs decide; nil allows every device.
    private let claims: Claims?

    /// Every device.
    public static let everyDevice = DeviceRights(nil)

    /// The rights `claims` give (every device when nil or when one glob is `*`).
    public init(_ claims: Claims?) {
        self.claims = claims?.subscribable.matchesEverything == true ? nil : claims
    }

    /// Whether `device` may be shown.
    public func allows(_ device: String) -> Bool {
        claims?.maySubscribe(device: device) ?? true
    }
}
