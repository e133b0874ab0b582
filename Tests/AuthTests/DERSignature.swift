/// Reads the DER `ECDSA-Sig-Value` that `openssl dgst -sign` writes, for the tests' own
/// conversion to JWS raw `r || s` (independent of the code under test).
enum DERSignature {
    /// A signature the parser does not understand.
    struct Invalid: Error {}

    /// `r || s`, each left-padded to 32 bytes.
    static func raw(fromDER der: [UInt8]) throws -> [UInt8] {
        guard der.count >= 8, der[0] == 0x30, Int(der[1]) == der.count - 2 else { throw Invalid() }
        let (r, afterR) = try integer(der, at: 2)
        let (s, afterS) = try integer(der, at: afterR)
        guard afterS == der.count else { throw Invalid() }
        return try pad(r) + pad(s)
    }

    /// The content of the INTEGER at `offset` and the offset after it.
    private static func integer(_ der: [UInt8], at offset: Int) throws -> ([UInt8], Int) {
        guard offset + 2 <= der.count, der[offset] == 0x02 else { throw Invalid() }
        let end = offset + 2 + Int(der[offset + 1])
        guard end <= der.count else { throw Invalid() }
        return (Array(der[(offset + 2)..<end]), end)
    }

    /// A big-endian magnitude as exactly 32 bytes.
    private static func pad(_ integer: [UInt8]) throws -> [UInt8] {
        let magnitude = Array(integer.drop { $0 == 0 })
        guard magnitude.count <= 32 else { throw Invalid() }
        return [UInt8](repeating: 0, count: 32 - magnitude.count) + magnitude
    }
}
