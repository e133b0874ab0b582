import COpenSSL

/// An OpenSSL public key (`EVP_PKEY`), decoded once at startup and shared by every
/// verification on every thread. Decoding per verification would cost about 100 µs
/// (OpenSSL 3's decoder), several times the signature check itself.
///
/// `@unchecked Sendable` because the compiler cannot see into the C pointer. Sharing it is
/// safe: the key is fully built before `init` returns and never modified afterwards; its
/// only use is `EVP_DigestVerifyInit` on a fresh per-call context, which takes its own
/// reference through OpenSSL's atomic reference count. openssl-threads(7) documents such
/// read-only use as thread-safe, and it is how TLS servers share one certificate key among
/// all their connections. The pointer never leaves this type, and `deinit` frees it.
final class SharedPublicKey: @unchecked Sendable {
    /// The owned `EVP_PKEY *`.
    private let key: OpaquePointer

    /// Takes ownership of `key`, which the caller must not use or free afterwards.
    init(adopting key: OpaquePointer) {
        self.key = key
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// Whether `signature` (DER for ECDSA, PKCS #1 v1.5 for RSA) is this key's SHA-256
    /// signature of `message`.
    func verifies(signature: [UInt8], of message: [UInt8]) -> Bool {
        guard !signature.isEmpty, !message.isEmpty, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return signature.withUnsafeBufferPointer { signatureBytes in
            message.withUnsafeBufferPointer { messageBytes in
                EVP_DigestVerify(
                    context, signatureBytes.baseAddress, signatureBytes.count, messageBytes.baseAddress,
                    messageBytes.count) == 1
            }
        }
    }
}
