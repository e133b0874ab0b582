import Foundation
import LocstreamProtocol

/// Verifies JWTs (JWS compact serialization) against one configured key and algorithm,
/// then checks their time claims and reads their access claims.
///
/// Only the algorithm the key implies is accepted; any other `alg` in a token, `none`
/// included, is refused before any cryptography runs, so an HS256 token can never be
/// checked against an RSA public key used as an HMAC secret. A `Sendable` value: share one
/// across every connection.
public struct JWTVerifier: Sendable {
    /// The key signatures are checked with.
    public let key: JWTKey
    /// The clock skew allowed for `exp`, `nbf` and `iat` (never negative).
    public let leeway: Duration
    /// `leeway` in seconds.
    private let leewaySeconds: TimeInterval

    /// A verifier for `key`, allowing `leeway` of clock skew; a negative leeway counts as zero.
    public init(key: JWTKey, leeway: Duration = .zero) {
        self.key = key
        self.leeway = max(leeway, .zero)
        self.leewaySeconds = self.leeway.seconds
    }

    /// The one algorithm this verifier accepts.
    public var algorithm: JWTAlgorithm { key.algorithm }

    /// Verifies `token` at `now` and returns its claims.
    ///
    /// In order: the token must be a compact JWS; its header must name exactly the configured
    /// algorithm and list no critical extensions; the signature must verify; the payload must
    /// be a JSON object with `sub` and `exp`; and the time claims must hold at `now`.
    ///
    /// - Throws: `AuthError`, whose message never contains the token.
    public func verify(token: String, now: Date) throws(AuthError) -> Claims {
        let claims = try signedClaims(token: token)
        try claims.checkValidity(at: now, leeway: leewaySeconds)
        return claims
    }

    /// `verify` without the time claims: the claims of `token` once its form, header and
    /// signature are checked, whenever it expires (`stream-client token inspect` reports
    /// the signature and the times apart).
    ///
    /// - Throws: `AuthError`, whose message never contains the token.
    public func signedClaims(token: String) throws(AuthError) -> Claims {
        let jws = try CompactJWS(token)
        let header = try JSONFields(json: jws.header, part: "header")
        try checkHeader(header)
        guard key.verifies(signature: jws.signature, of: jws.signingInput) else {
            throw AuthError(
                .badSignature, "the signature does not verify with the configured \(algorithm.rawValue) key")
        }
        return try Claims(payload: JSONFields(json: jws.payload, part: "payload"))
    }

    /// Refuses every algorithm but the configured one, and any `crit` extension (none is
    /// understood here, so RFC 7515 §4.1.11 requires refusing them).
    private func checkHeader(_ header: JSONFields) throws(AuthError) {
        let name: String?
        do {
            name = try header.string("alg")
        } catch {
            throw AuthError(.algorithm, "the header's \"alg\" is not a string")
        }
        guard let name else { throw AuthError(.algorithm, "the header names no algorithm") }
        guard name == algorithm.rawValue else {
            if name == "none" { throw AuthError(.algorithm, "unsigned tokens (alg \"none\") are refused") }
            let shown = Self.knownAlgorithms.contains(name) ? "\"\(name)\"" : "an unknown algorithm"
            throw AuthError(.algorithm, "the token uses \(shown); only \(algorithm.rawValue) is accepted")
        }
        guard !header.contains("crit") else {
            throw AuthError(.malformed, "the header lists critical extensions (\"crit\"), which are not supported")
        }
    }

    /// Registered JWS algorithm names, which are safe to echo in a message; anything else
    /// in `alg` is attacker-chosen text and is not repeated.
    private static let knownAlgorithms: Set<String> = [
        "HS256", "HS384", "HS512", "RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512",
        "EdDSA",
    ]
}
