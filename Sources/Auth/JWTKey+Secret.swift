extension JWTKey {
    /// The shortest HS256 secret accepted: RFC 7518 §3.2 requires a key at least as long as
    /// the hash output.
    public static let minimumSecretBytes = 32

    /// An HS256 key from the secret's bytes.
    ///
    /// - Throws: `JWTKeyError` `.empty`, or `.tooWeak` below `minimumSecretBytes`.
    public static func secret(bytes: [UInt8]) throws(JWTKeyError) -> JWTKey {
        guard !bytes.isEmpty else { throw JWTKeyError(.empty, "the secret is empty") }
        guard bytes.count >= minimumSecretBytes else {
            throw JWTKeyError(
                .tooWeak,
                "the secret has \(bytes.count) bytes; HS256 needs at least \(minimumSecretBytes) (RFC 7518 §3.2)")
        }
        return JWTKey(algorithm: .hs256, material: .secret(bytes))
    }

    /// An HS256 key from a secret given as text (a flag or an environment variable), taken
    /// as its UTF-8 bytes exactly, with nothing trimmed.
    public static func secret(_ text: String) throws(JWTKeyError) -> JWTKey {
        try secret(bytes: Array(text.utf8))
    }

    /// An HS256 key from a file holding the secret. One trailing newline (`\n` or `\r\n`),
    /// as editors and `echo` leave, is removed; every other byte is part of the secret.
    ///
    /// - Throws: `JWTKeyError` naming the file when it cannot be read, is empty or too short.
    public static func secretFile(atPath path: String) throws(JWTKeyError) -> JWTKey {
        var bytes = try KeyFile.contents(atPath: path)
        if bytes.last == UInt8(ascii: "\n") {
            bytes.removeLast()
            if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        }
        do {
            return try secret(bytes: bytes)
        } catch {
            throw JWTKeyError(error.reason, "\(path): \(error.message)")
        }
    }
}
