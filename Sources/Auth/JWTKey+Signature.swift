import COpenSSL

extension JWTKey {
    /// Whether `signature` is this key's signature of `message` under `algorithm`.
    ///
    /// HS256 compares the expected MAC in constant time (`CRYPTO_memcmp`). RS256 and ES256
    /// verify with OpenSSL; ES256's raw `r || s` is converted to DER first.
    func verifies(signature: [UInt8], of message: [UInt8]) -> Bool {
        defer { ERR_clear_error() }  // leave no failure on this thread's OpenSSL error queue
        switch material {
        case .secret(let secret):
            guard let expected = HMACSHA256.mac(key: secret, message: message) else { return false }
            return signature.count == expected.count && Self.constantTimeEqual(signature, expected)
        case .publicKey(let key):
            let encoded = algorithm == .es256 ? ECDSASignature.der(fromRaw: signature) : signature
            guard let encoded else { return false }
            return key.verifies(signature: encoded, of: message)
        }
    }

    /// `CRYPTO_memcmp` over two buffers of the same length.
    private static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
            }
        }
    }
}
