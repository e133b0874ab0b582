import Auth
import Foundation
import Testing

/// HS256 tokens made with `openssl dgst -mac HMAC`.
@Suite struct HS256Tests {
    @Test func validTokenGivesItsClaims() throws {
        let token = try TokenFactory.hs256(TestSecrets.fullPayload)
        let claims = try TestSecrets.hs256Verifier().verify(token: token, now: TestSecrets.nowDate)
        let now = TestSecrets.now
        #expect(claims.subject == "client-7")
        #expect(claims.expiresAt == Date(timeIntervalSince1970: TimeInterval(now + 600)))
        #expect(claims.expirySeconds == now + 600)
        #expect(claims.notBeforeSeconds == now - 60)
        #expect(claims.issuedAtSeconds == now - 60)
        #expect(claims.devicePatterns.map(\.pattern) == ["veh-*", "courier-9"])
        #expect(claims.areas && claims.mayUseAreas)
        #expect(claims.publishPatterns.map(\.pattern) == ["veh-1"])
        #expect(claims.maySubscribe(device: "veh-42"))
        #expect(claims.maySubscribe(device: "courier-9"))
        #expect(!claims.maySubscribe(device: "courier-90"))
        #expect(claims.mayPublish(device: "veh-1"))
        #expect(!claims.mayPublish(device: "veh-2"))
    }

    @Test func flippedSignatureByteIsRefused() throws {
        let verifier = try TestSecrets.hs256Verifier()
        let token = try TokenFactory.hs256(TestSecrets.payload())
        for index in [0, 15, 31] {
            let forged = TokenMutation.flippingSignatureByte(token, at: index)
            #expect(TestSecrets.refusal(verifier, forged) == .badSignature)
        }
    }

    @Test func changedPayloadIsRefused() throws {
        let token = try TokenFactory.hs256(TestSecrets.payload(#""devices":["veh-1"]"#))
        let forged = TokenMutation.replacingPayload(token, with: TestSecrets.payload(#""devices":["*"]"#))
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), forged) == .badSignature)
    }

    @Test func otherSecretIsRefused() throws {
        let token = try TokenFactory.hs256(TestSecrets.payload(), secret: Array(repeating: 0x42, count: 32))
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), token) == .badSignature)
    }

    @Test func truncatedOrEmptySignatureIsRefused() throws {
        let verifier = try TestSecrets.hs256Verifier()
        let token = try TokenFactory.hs256(TestSecrets.payload())
        let signature = try #require(TokenMutation.decode(TokenMutation.parts(token)[2]))
        let truncated = TokenMutation.replacingSignature(token, with: Array(signature.prefix(31)))
        let extended = TokenMutation.replacingSignature(token, with: signature + [0])
        #expect(TestSecrets.refusal(verifier, truncated) == .badSignature)
        #expect(TestSecrets.refusal(verifier, extended) == .badSignature)
        #expect(TestSecrets.refusal(verifier, TokenMutation.replacingSignature(token, with: [])) == .badSignature)
    }

    @Test func minimalTokenAllowsNothing() throws {
        let token = try TokenFactory.hs256(TestSecrets.payload())
        let claims = try TestSecrets.hs256Verifier().verify(token: token, now: TestSecrets.nowDate)
        #expect(claims.notBeforeSeconds == nil && claims.issuedAtSeconds == nil)
        #expect(claims.devicePatterns.isEmpty && claims.publishPatterns.isEmpty)
        #expect(!claims.mayUseAreas)
        #expect(!claims.maySubscribe(device: "veh-1"))
        #expect(!claims.mayPublish(device: "veh-1"))
    }

    @Test func verifiesConcurrently() async throws {
        let verifier = try TestSecrets.hs256Verifier()
        let token = try TokenFactory.hs256(TestSecrets.payload())
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<64 {
                group.addTask { (try? verifier.verify(token: token, now: TestSecrets.nowDate)) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == 64)
    }
}
