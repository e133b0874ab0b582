/// Converts JWS ES256 signatures (raw `r || s`, 32 bytes each, RFC 7518 §3.4) into the
/// DER `ECDSA-Sig-Value` that OpenSSL verifies.
enum ECDSASignature {
    /// The byte length of one P-256 coordinate.
    static let coordinateBytes = 32

    /// DER `SEQUENCE { INTEGER r, INTEGER s }`, or nil unless `raw` is exactly 64 bytes.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * coordinateBytes else { return nil }
        let r = integer(raw[0..<coordinateBytes])
        let s = integer(raw[coordinateBytes...])
        let body = r + s
        // At most 2 × (2 + 33) = 70 bytes, so the short length form always applies.
        return [0x30, UInt8(body.count)] + body
    }

    /// A DER INTEGER holding the unsigned big-endian `magnitude`: leading zeros dropped,
    /// and one zero put back when the top bit would otherwise read as a sign.
    private static func integer(_ magnitude: ArraySlice<UInt8>) -> [UInt8] {
        var content = Array(magnitude.drop { $0 == 0 })
        if content.first.map({ $0 & 0x80 != 0 }) ?? true { content.insert(0, at: 0) }
        return [0x02, UInt8(content.count)] + content
    }
}
