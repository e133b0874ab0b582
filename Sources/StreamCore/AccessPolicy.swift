import Auth
import Foundation
import LocstreamProtocol

/// Who may do what on a node: everyone (`--auth none`) or the holders of valid
/// tokens, each limited to what its claims allow. The node's `Gatekeeper` applies it.
public enum AccessPolicy: Sendable {
    /// No authentication: every op is allowed.
    case open
    /// JWTs, checked by the `TokenAuthentication`'s `verify`.
    case tokens(TokenAuthentication)

    /// Whether authentication is required.
    public var requiresToken: Bool {
        if case .tokens = self { true } else { false }
    }
}

/// Checks tokens, with the timings of the authentication rules.
public struct TokenAuthentication: Sendable {
    /// Verifies a token and returns its claims.
    public var verify: @Sendable (_ token: String, _ now: Date) throws(AuthError) -> Claims
    /// A connection with no valid token this long after it opened is closed with 1008.
    public var timeout: Duration
    /// How long before `exp` the "token expiring" warning goes out.
    public var warningLead: Duration
    /// Grace after `exp` before the connection is closed (the verifier's leeway).
    public var leeway: Duration

    /// The default `timeout` (`--auth-timeout`).
    public static let defaultTimeout = Duration.seconds(5)
    /// The default `warningLead` (`--token-warning`).
    public static let defaultWarningLead = Duration.seconds(30)

    /// Token checks through `verify`.
    public init(
        timeout: Duration = defaultTimeout, warningLead: Duration = defaultWarningLead, leeway: Duration = .zero,
        verify: @escaping @Sendable (String, Date) throws(AuthError) -> Claims
    ) {
        self.verify = verify
        self.timeout = timeout
        self.warningLead = warningLead
        self.leeway = leeway
    }
}

extension Claims {
    /// Whether these claims cover subscribing to `target`.
    func allows(_ target: SubscriptionTarget) -> Bool {
        switch target {
        case .devices(let devices): devices.allSatisfy { maySubscribe(device: $0) }
        case .area: mayUseAreas
        }
    }
}
