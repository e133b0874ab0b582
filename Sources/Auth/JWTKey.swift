/// The key a `JWTVerifier` checks signatures with. Its kind fixes the one algorithm
/// the verifier accepts: a shared secret means HS256, an RSA public key RS256, and a
/// P-256 public key ES256.
///
/// A `Sendable` value: the secret's bytes, or a public key decoded once and shared
/// read-only (see `SharedPublicKey`). Make one with `secret(_:)`, `secretFile(atPath:)`,
/// `publicKey(pem:)` or `publicKeyFile(atPath:)`.
public struct JWTKey: Sendable, CustomStringConvertible, CustomReflectable {
    /// The key bytes, by kind.
    enum Material: Sendable {
        /// An HMAC secret.
        case secret([UInt8])
        /// A public key, already checked to be RSA (≥ 2048 bits) or P-256.
        case publicKey(SharedPublicKey)
    }

    /// The only algorithm a verifier with this key accepts.
    public let algorithm: JWTAlgorithm
    /// The key bytes.
    let material: Material

    init(algorithm: JWTAlgorithm, material: Material) {
        self.algorithm = algorithm
        self.material = material
    }

    /// Names the kind of key and never its bytes, so it is safe for `--print-config` and logs.
    public var description: String {
        switch material {
        case .secret(let bytes): "\(algorithm.rawValue) shared secret (\(bytes.count) bytes)"
        case .publicKey: "\(algorithm.rawValue) public key"
        }
    }

    /// Shows the algorithm only, so `dump` and debuggers never print the secret either.
    public var customMirror: Mirror {
        Mirror(self, children: ["algorithm": algorithm])
    }
}
