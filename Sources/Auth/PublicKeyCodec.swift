import COpenSSL

/// Reads PEM public keys and checks that they are usable for RS256 or ES256.
enum PublicKeyCodec {
    /// The smallest RSA modulus accepted (RFC 7518 §3.3).
    static let minimumRSABits: Int32 = 2048

    /// Parses a PEM `PUBLIC KEY` (OpenSSL 3 also reads a PKCS#1 `RSA PUBLIC KEY`), checks
    /// that it is RSA (≥ 2048 bits) or P-256, and returns the algorithm it implies with the key.
    static func load(pem: [UInt8]) throws(JWTKeyError) -> (JWTAlgorithm, SharedPublicKey) {
        defer { ERR_clear_error() }  // leave no failure on this thread's OpenSSL error queue
        guard let key = parse(pem: pem) else { throw notAPublicKey(pem) }
        let algorithm: JWTAlgorithm
        do {
            algorithm = try self.algorithm(of: key)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
        return (algorithm, SharedPublicKey(adopting: key))
    }

    /// The first PEM public-key block in `pem`, decoded; the caller owns the result.
    private static func parse(pem: [UInt8]) -> OpaquePointer? {
        pem.withUnsafeBytes { buffer -> OpaquePointer? in
            guard let length = Int32(exactly: buffer.count), let bio = BIO_new_mem_buf(buffer.baseAddress, length)
            else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
    }

    /// The algorithm `key` implies, or why it is refused.
    private static func algorithm(of key: OpaquePointer) throws(JWTKeyError) -> JWTAlgorithm {
        if locstream_pkey_is_rsa(key) == 1 {
            let bits = EVP_PKEY_get_bits(key)
            guard bits >= minimumRSABits else {
                throw JWTKeyError(.tooWeak, "the RSA key has \(bits) bits; RS256 needs at least \(minimumRSABits)")
            }
            return .rs256
        }
        if locstream_pkey_is_p256(key) == 1 { return .es256 }
        if EVP_PKEY_is_a(key, "EC") == 1 {
            throw JWTKeyError(.unsupported, "the EC key is not on P-256 (prime256v1), the only curve ES256 allows")
        }
        let name = EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "unknown"
        throw JWTKeyError(.unsupported, "a \(name) key is not supported; use an RSA (RS256) or P-256 (ES256) key")
    }

    /// The error for text that holds no PEM public key, with a hint when it holds a
    /// related PEM block instead.
    private static func notAPublicKey(_ pem: [UInt8]) -> JWTKeyError {
        let text = String(decoding: pem, as: UTF8.self)
        let hint: String
        if text.contains("PRIVATE KEY-----") {
            hint = "it holds a private key; give the public key (openssl pkey -in key.pem -pubout)"
        } else if text.contains("-----BEGIN CERTIFICATE-----") {
            hint = "it holds a certificate; give its public key (openssl x509 -in cert.pem -pubkey -noout)"
        } else {
            hint = "expected a PEM block starting with -----BEGIN PUBLIC KEY-----"
        }
        return JWTKeyError(.invalid, "not a PEM public key: \(hint)")
    }
}
