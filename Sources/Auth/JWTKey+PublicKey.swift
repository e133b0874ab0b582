extension JWTKey {
    /// An RS256 or ES256 key from a PEM public key (`-----BEGIN PUBLIC KEY-----`).
    ///
    /// An RSA key (at least 2048 bits, RFC 7518 §3.3) gives RS256; an EC key on P-256 gives
    /// ES256. A PKCS#1 `RSA PUBLIC KEY` block is read too. Any other key is refused, and so
    /// are private keys and certificates, each with a hint on how to get the right form.
    public static func publicKey(pem: String) throws(JWTKeyError) -> JWTKey {
        let (algorithm, key) = try PublicKeyCodec.load(pem: Array(pem.utf8))
        return JWTKey(algorithm: algorithm, material: .publicKey(key))
    }

    /// An RS256 or ES256 key from a PEM public-key file; see `publicKey(pem:)`.
    ///
    /// - Throws: `JWTKeyError` naming the file.
    public static func publicKeyFile(atPath path: String) throws(JWTKeyError) -> JWTKey {
        let text = try KeyFile.contents(atPath: path)
        do {
            let (algorithm, key) = try PublicKeyCodec.load(pem: text)
            return JWTKey(algorithm: algorithm, material: .publicKey(key))
        } catch {
            throw JWTKeyError(error.reason, "\(path): \(error.message)")
        }
    }
}
