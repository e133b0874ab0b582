import COpenSSL

/// HMAC-SHA256 through OpenSSL's one-shot `HMAC`.
enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`; nil only if OpenSSL fails.
    static func mac(key: [UInt8], message: [UInt8]) -> [UInt8]? {
        guard let keyLength = Int32(exactly: key.count), !key.isEmpty else { return nil }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var outputLength: UInt32 = 0
        let done = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                output.withUnsafeMutableBufferPointer { outputBytes in
                    HMAC(
                        EVP_sha256(), keyBytes.baseAddress, keyLength, messageBytes.baseAddress, messageBytes.count,
                        outputBytes.baseAddress, &outputLength) != nil
                }
            }
        }
        guard done, outputLength == 32 else { return nil }
        return Array(output[0..<32])
    }
}
