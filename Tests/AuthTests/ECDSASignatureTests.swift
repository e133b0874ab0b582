import LocstreamProtocol
import TestSupport
import Testing

@testable import Auth

/// Raw `r || s` to DER, checked against the tests' own DER reader.
@Suite struct ECDSASignatureTests {
    @Test func refusesAnythingButSixtyFourBytes() {
        #expect(ECDSASignature.der(fromRaw: []) == nil)
        #expect(ECDSASignature.der(fromRaw: [UInt8](repeating: 1, count: 63)) == nil)
        #expect(ECDSASignature.der(fromRaw: [UInt8](repeating: 1, count: 65)) == nil)
        #expect(ECDSASignature.der(fromRaw: [UInt8](repeating: 1, count: 72)) == nil)
    }

    @Test func encodesSmallAndHighBitIntegers() throws {
        let r = [UInt8](repeating: 0, count: 31) + [5]
        let s = [0x80] + [UInt8](repeating: 0, count: 31)
        let der = try #require(ECDSASignature.der(fromRaw: r + s))
        #expect(der == [0x30, 3 + 35, 0x02, 1, 5, 0x02, 33, 0x00, 0x80] + [UInt8](repeating: 0, count: 31))
        #expect(try DERSignature.raw(fromDER: der) == r + s)
    }

    @Test func encodesZero() throws {
        let der = try #require(ECDSASignature.der(fromRaw: [UInt8](repeating: 0, count: 64)))
        #expect(der == [0x30, 6, 0x02, 1, 0, 0x02, 1, 0])
    }

    @Test func roundTripsVariedValues() throws {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<200 {
            var raw = (0..<64).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let zeros = Int(generator.next() % 20)
            for index in 0..<zeros { raw[index] = 0 }
            let der = try #require(ECDSASignature.der(fromRaw: raw))
            #expect(try DERSignature.raw(fromDER: der) == raw)
        }
    }
}
