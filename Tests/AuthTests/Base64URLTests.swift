import Testing

@testable import Auth

/// The strict base64url decoder, against RFC 4648 §10 vectors and the cases it must refuse.
@Suite struct Base64URLTests {
    /// Decodes text.
    private func decode(_ text: String) -> [UInt8]? {
        Base64URL.decode(ArraySlice(text.utf8))
    }

    @Test func decodesRFC4648Vectors() {
        let vectors = [
            "": "", "Zg": "f", "Zm8": "fo", "Zm9v": "foo", "Zm9vYg": "foob", "Zm9vYmE": "fooba", "Zm9vYmFy": "foobar",
        ]
        for (encoded, decoded) in vectors {
            #expect(decode(encoded) == Array(decoded.utf8), "\(encoded)")
        }
    }

    @Test func decodesTheURLSafeAlphabet() {
        #expect(decode("-_-_") == [0xFB, 0xFF, 0xBF])
        #expect(decode("AQID") == [1, 2, 3])
        #expect(decode("____") == [0xFF, 0xFF, 0xFF])
    }

    @Test(arguments: ["Zg==", "Zm8=", "+/+/", "Zm9v\n", " Zm9v", "Z", "Zm9vY", "Zm9v.", "Zm\u{0}v"])
    func refusesNonBase64URL(text: String) {
        #expect(decode(text) == nil)
    }

    @Test func refusesNonZeroUnusedBits() {
        #expect(decode("Zg") == [0x66])
        #expect(decode("Zh") == nil)
        #expect(decode("Zm8") == [0x66, 0x6F])
        #expect(decode("Zm9") == nil)
    }
}
