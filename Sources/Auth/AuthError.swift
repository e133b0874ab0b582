/// Why a token was refused.
///
/// `reason` is a short, stable label for metrics and logs (`auth_failures_total{reason}`).
/// `message` is for humans. Neither ever contains the token or any part of it.
public struct AuthError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of failure, usable as a metrics label through `rawValue`.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// Not a compact JWS: wrong number of parts, bad base64url, not a JSON object, too long.
        case malformed
        /// The header names no algorithm, or one other than the configured one (`none` included).
        case algorithm
        /// The signature does not verify with the configured key.
        case badSignature = "bad_signature"
        /// `exp` has passed (beyond the leeway).
        case expired
        /// `nbf` is in the future, or `iat` is in the future beyond the leeway.
        case notYetValid = "not_yet_valid"
        /// A required claim (`sub`, `exp`) is absent.
        case missingClaim = "missing_claim"
        /// A claim is present with the wrong type or an unusable value.
        case invalidClaim = "invalid_claim"
    }

    /// The class of failure.
    public let reason: Reason
    /// A sentence for logs and for the client; it never quotes the token.
    public let message: String

    /// Makes an error with a reason and a human message.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}
