import Foundation
import LocstreamProtocol
import TestSupport
import Testing

@testable import Auth

/// `JWTKey.sign` and `Base64URL.encode`, against OpenSSL's HMAC and Foundation's base64.
@Suite struct SigningTests {
    @Test("base64url encoding matches Foundation's base64 made URL-safe, and decodes back", arguments: 0..<40)
    func encodesLikeFoundation(length: Int) {
        var random = SplitMix64(seed: UInt64(length))
        let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let encoded = Base64URL.encode(bytes)
        #expect(encoded == JWTMint.base64URL(bytes))
        #expect(Base64URL.decode(ArraySlice(encoded.utf8)) == bytes)
    }

    @Test("an HS256 token signed here is byte for byte the one openssl signs, and its claims read back the same")
    func signsLikeOpenSSL() throws {
        let claims = Claims(
            subject: "dispatch \"7\"", expirySeconds: TestSecrets.now + 600, notBeforeSeconds: TestSecrets.now - 5,
            issuedAtSeconds: TestSecrets.now, devicePatterns: ["veh-*", "depot-1"], areas: true,
            publishPatterns: ["veh-1"])
        let key = try JWTKey.secret(bytes: TestSecrets.secret)
        let token = try key.sign(claims)
        let payload = String(decoding: claims.payload.encoded(), as: UTF8.self)
        #expect(
            token == (try TokenFactory.hs256(payload, secret: TestSecrets.secret, header: TokenFactory.hs256Header)))
        #expect(try TestSecrets.hs256Verifier().verify(token: token, now: TestSecrets.nowDate) == claims)
    }

    @Test("a token that allows nothing says so in full: empty lists and areas false")
    func writesEveryRight() {
        let payload = Claims(subject: "a", expirySeconds: 1).payload
        #expect(
            String(decoding: payload.encoded(), as: UTF8.self)
                == #"{"areas":false,"devices":[],"exp":1,"publish":[],"sub":"a"}"#)
    }

    @Test("a public key cannot sign")
    func publicKeysDoNotSign() throws {
        let keys = try TestKeys.shared.get()
        #expect(throws: JWTKeyError.self) {
            try JWTKey.publicKey(pem: keys.ec.publicKeyPEM).sign(Claims(subject: "a", expirySeconds: 1))
        }
    }

    @Test("decoding without a key gives the header, the payload and the claims, or why a server refuses them")
    func decodesWithoutKey() throws {
        let token = try TokenFactory.hs256(TestSecrets.fullPayload)
        let decoded = try DecodedToken(token)
        #expect(decoded.header == .object(["alg": .string("HS256"), "typ": .string("JWT")]))
        #expect(try decoded.claims.get().devicePatterns.map(\.pattern) == ["veh-*", "courier-9"])
        let noExpiry = try DecodedToken(try TokenFactory.hs256(#"{"sub":"a"}"#, secret: Array("other".utf8)))
        #expect(throws: AuthError(.missingClaim, "\"exp\" is missing")) { try noExpiry.claims.get() }
        #expect(throws: AuthError.self) { try DecodedToken("a.b") }
    }
}
