import Auth
import Foundation
import TestSupport
import Testing

/// Tokens that are not a compact JWS, or whose parts are not base64url JSON objects.
@Suite struct MalformedTokenTests {
    /// A valid token's three parts.
    private func parts() throws -> [String] {
        TokenMutation.parts(try TokenFactory.hs256(TestSecrets.payload()))
    }

    @Test func wrongNumberOfPartsIsMalformed() throws {
        let verifier = try TestSecrets.hs256Verifier()
        let parts = try parts()
        for token in [
            "", ".", "..", "...", parts[0], parts[0] + "." + parts[1], parts.joined(separator: ".") + ".",
            parts.joined(separator: ".") + "." + parts[2], (parts + ["a", "b"]).joined(separator: "."),
        ] {
            #expect(TestSecrets.refusal(verifier, token) == .malformed)
        }
    }

    @Test(arguments: ["+", "/", "=", " ", "!", "\n", "é", "%3D"])
    func characterOutsideBase64URLIsMalformed(character: String) throws {
        let verifier = try TestSecrets.hs256Verifier()
        let parts = try parts()
        for index in 0..<3 {
            var tampered = parts
            tampered[index] = String(parts[index].dropLast()) + character
            #expect(TestSecrets.refusal(verifier, tampered.joined(separator: ".")) == .malformed, "part \(index)")
        }
    }

    @Test func paddedPartIsMalformed() throws {
        let header = TokenFactory.base64URL(Array(#"{"alg":"HS256"} "#.utf8))
        #expect(header.count % 4 != 0)
        let padded = header + String(repeating: "=", count: 4 - header.count % 4)
        var parts = try parts()
        parts[0] = padded
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), parts.joined(separator: ".")) == .malformed)
    }

    @Test func nonCanonicalTrailingBitsAreMalformed() throws {
        var parts = try parts()
        let signature = try #require(TokenMutation.decode(parts[2]))
        #expect(signature.count == 32)  // 43 characters: the last carries 2 unused bits
        let last = try #require(parts[2].last)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let value = try #require(alphabet.firstIndex(of: last))
        parts[2] = String(parts[2].dropLast()) + String(alphabet[value ^ 1])
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), parts.joined(separator: ".")) == .malformed)
    }

    @Test func headerThatIsNotJSONIsMalformed() throws {
        let verifier = try TestSecrets.hs256Verifier()
        for header in ["not json", "", "[1,2]", "\"HS256\"", #"{"alg":"HS256""#, "null"] {
            let token = try TokenFactory.hs256(TestSecrets.payload(), header: header)
            #expect(TestSecrets.refusal(verifier, token) == .malformed, "header \(header)")
        }
    }

    @Test func signedPayloadThatIsNotAJSONObjectIsMalformed() throws {
        let verifier = try TestSecrets.hs256Verifier()
        for payload in ["not json", "", "[]", "42", #"{"sub":"c""#, "{\"sub\":\"\u{0}\"}"] {
            let token = try TokenFactory.hs256(payload)
            #expect(TestSecrets.refusal(verifier, token) == .malformed, "payload \(payload)")
        }
    }

    /// Claims sets that a lenient parser reads one way and another parser another way, or that
    /// are not JSON at all: each is refused as malformed, never read (issue 13, item 7).
    static let ambiguousPayloads = [
        #"{"sub":"first","exp":1700000600,"sub":"last"}"#,
        #"{"sub":"c","exp":1700000600,"exp":9223372036854775807}"#,
        #"{"sub":"c","exp":1700000600,"devices":["*"],"devices":[]}"#,
        #"{"sub":"c","exp":1700000600,"x":{"a":1,"a":2}}"#,
        #"{"sub":"c","exp":1700000600,}"#,
        #"{"sub":"c","exp":1700000600,"devices":["*",]}"#,
        #"{"sub":"c","exp":NaN}"#,
        #"{"sub":"c","exp":1700000600,"x":Infinity}"#,
        #"{"sub":"c","exp":01700000600}"#,
        #"{"sub":"c","exp":1700000600,"x":1e400}"#,
        #"{"sub":"c","exp":1700000600,"x":"\ud800"}"#,
        #"{"sub":"c","exp":1700000600} {}"#,
        #"{"sub":"c","exp":1700000600,"x":"# + String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
            + "}",
    ]

    @Test(arguments: ambiguousPayloads)
    func ambiguousOrInvalidPayloadIsMalformed(payload: String) throws {
        let token = try TokenFactory.hs256(payload)
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), token) == .malformed)
    }

    @Test func repeatedHeaderMemberIsMalformed() throws {
        let token = try TokenFactory.hs256(TestSecrets.payload(), header: #"{"alg":"none","alg":"HS256"}"#)
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), token) == .malformed)
    }

    @Test func payloadThatIsNotUTF8IsMalformed() throws {
        let input = TokenFactory.hs256Header
        let header = TokenFactory.base64URL(Array(input.utf8))
        let payload = TokenFactory.base64URL([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D])
        let signingInput = header + "." + payload
        let hexKey = TestSecrets.secret.map { String(format: "%02x", $0) }.joined()
        let mac = try OpenSSLTool.run(
            ["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:\(hexKey)", "-binary"],
            input: Array(signingInput.utf8))
        let token = signingInput + "." + TokenFactory.base64URL(mac)
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), token) == .malformed)
    }

    @Test func oversizedTokenIsMalformed() throws {
        let devices = (0..<2000).map { "\"device-\($0)\"" }.joined(separator: ",")
        let token = try TokenFactory.hs256(TestSecrets.payload(#""devices":[\#(devices)]"#))
        #expect(token.utf8.count > 16 * 1024)
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), token) == .malformed)
    }

    @Test func bearerPrefixOrWhitespaceIsMalformed() throws {
        let verifier = try TestSecrets.hs256Verifier()
        let token = try TokenFactory.hs256(TestSecrets.payload())
        #expect(TestSecrets.refusal(verifier, token) == nil)
        #expect(TestSecrets.refusal(verifier, "Bearer " + token) == .malformed)
        #expect(TestSecrets.refusal(verifier, " " + token) == .malformed)
        #expect(TestSecrets.refusal(verifier, token + "\n") == .malformed)
    }

    @Test func messagesNeverContainTheToken() throws {
        let keys = try TestKeys.shared.get()
        let verifier = try TestSecrets.hs256Verifier()
        let valid = try TokenFactory.hs256(TestSecrets.fullPayload)
        let tokens = [
            valid, TokenMutation.flippingSignatureByte(valid), try TokenFactory.hs256(#"{"exp":1}"#),
            try TokenFactory.hs256(#"{"sub":"secret-subject","exp":1}"#), try TokenFactory.hs256("garbage"),
            try TokenFactory.rs256(TestSecrets.payload(), key: keys.rsa), TokenFactory.unsigned(TestSecrets.payload()),
            valid + "." + valid, "abc.def!.ghi",
        ]
        for token in tokens {
            let failure = TestSecrets.failure(verifier, token, offset: 10_000)
            let message = try #require(failure).message
            for part in TokenMutation.parts(token) where part.count >= 3 {
                #expect(!message.contains(part))
            }
            #expect(!message.contains("secret-subject"))
            #expect(!"\(try #require(failure))".contains(token))
        }
    }
}
