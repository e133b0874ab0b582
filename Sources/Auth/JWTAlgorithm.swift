/// The JWS signature algorithms a `JWTVerifier` can be configured with.
///
/// A verifier accepts exactly one of them: the one its key implies. Every other
/// `alg` a token names, `none` included, is refused.
public enum JWTAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// HMAC with SHA-256 over a shared secret.
    case hs256 = "HS256"
    /// RSASSA-PKCS1-v1_5 with SHA-256, verified with an RSA public key.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256, verified with a P-256 public key.
    case es256 = "ES256"
}
