import Auth
import Foundation
import LocstreamProtocol
import Observability

/// The one place that answers "who is this and what may they do", for a WebSocket
/// session and an HTTP request alike. It reads the token off a request, verifies it
/// against the node's `AccessPolicy` at the node's clock, counts every failure in
/// `auth_failures_total` and turns it into the `unauthorized` error the caller sends.
/// The claims it returns say what their holder may do (`Claims.allows`,
/// `maySubscribe`, `mayPublish`); nil claims with `.open` access allow everything.
public struct Gatekeeper: Sendable {
    /// Everyone, or the holders of valid tokens.
    public let access: AccessPolicy
    private let metrics: StreamMetrics
    private let logger: Logger
    private let clock: any NodeClock

    /// Token checks by `access`, at `clock`'s time, counted in `metrics` and logged to `logger`.
    public init(access: AccessPolicy, metrics: StreamMetrics, logger: Logger, clock: any NodeClock) {
        self.access = access
        self.metrics = metrics
        self.logger = logger
        self.clock = clock
    }

    /// The token checks and their timings; nil when access is open.
    var tokens: TokenAuthentication? {
        if case .tokens(let authentication) = access { authentication } else { nil }
    }

    /// The token an upgrade request carries: `Authorization: Bearer …`, else `?token=`.
    public static func upgradeToken(authorization: String?, query: [String: String]) -> String? {
        bearerToken(authorization) ?? query["token"]
    }

    /// The token of an `Authorization: Bearer …` header, if that is what it holds.
    public static func bearerToken(_ header: String?) -> String? {
        guard let header, header.lowercased().hasPrefix("bearer ") else { return nil }
        let token = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// A WebSocket connection's token (sent with the upgrade or in an `auth` op): its
    /// claims, or an `unauthorized` error for the `auth` op, logged with the connection
    /// (`bad_request` when access is open: no token is needed).
    func verify(_ token: String, connection: String) throws(ProtocolError) -> Claims {
        guard let authentication = tokens else {
            throw ProtocolError(
                .badRequest, "authentication is off on this server (--auth none); no token is needed",
                failedOp: "auth")
        }
        do throws(AuthError) {
            return try verified(token, with: authentication)
        } catch {
            logger.refused(
                "auth failed", ["conn": connection, "reason": error.reason.rawValue, "detail": error.message])
            throw ProtocolError(.unauthorized, "token refused: \(error.message)", failedOp: "auth")
        }
    }

    /// The error for `op`, sent on a connection before any valid token, counted as a
    /// missing token.
    func unauthenticated(_ op: String) -> ProtocolError {
        metrics.authFailures["missing"]?.increment()
        return ProtocolError(
            .unauthorized, "authenticate first: send {\"op\":\"auth\",\"token\":\"…\"}", failedOp: op)
    }

    /// An HTTP request's bearer token (`authorization` is its `Authorization` header):
    /// its claims, nil when access is open, or an `unauthorized` error.
    public func authorize(authorization: String?) throws(ProtocolError) -> Claims? {
        guard let authentication = tokens else { return nil }
        guard let token = Self.bearerToken(authorization) else {
            metrics.authFailures["missing"]?.increment()
            throw ProtocolError(.unauthorized, "send a token: Authorization: Bearer …")
        }
        do throws(AuthError) {
            return try verified(token, with: authentication)
        } catch {
            throw ProtocolError(.unauthorized, "token refused: \(error.message)")
        }
    }

    /// How long a token verified now has left.
    func timeLeft(_ claims: Claims) -> Duration {
        claims.timeLeft(at: clock.now)
    }

    /// Verifies `token` at the clock's time; a failure is counted by its reason.
    private func verified(_ token: String, with authentication: TokenAuthentication) throws(AuthError) -> Claims {
        do {
            return try authentication.verify(token, clock.now)
        } catch {
            metrics.authFailures[error.reason.rawValue]?.increment()
            throw error
        }
    }
}
