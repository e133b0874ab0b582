import Auth
import Foundation
import TestSupport
import Testing

/// RS256 and ES256 tokens signed by `openssl dgst -sign`.
@Suite struct PublicKeyTokenTests {
    /// The claims of `fullPayload` signed with `pair`'s private key by `sign`, as the
    /// verifier of its public key reads them; records an issue unless that verifier's
    /// algorithm is `algorithm`.
    private func verifiedFullPayload(
        _ pair: TestKeys.KeyPair, _ algorithm: JWTAlgorithm,
        sign: (String, TestKeys.KeyPair) throws -> String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Claims {
        let verifier = try pair.verifier()
        #expect(verifier.algorithm == algorithm, sourceLocation: sourceLocation)
        return try verifier.verify(token: try sign(TestSecrets.fullPayload, pair), now: TestSecrets.nowDate)
    }

    @Test func validRS256Token() throws {
        let keys = try TestKeys.shared.get()
        let claims = try verifiedFullPayload(keys.rsa, .rs256) { try TokenFactory.rs256($0, key: $1) }
        #expect(claims.subject == "client-7")
        #expect(claims.maySubscribe(device: "veh-1"))
    }

    @Test func validES256Token() throws {
        let keys = try TestKeys.shared.get()
        let claims = try verifiedFullPayload(keys.ec, .es256) { try TokenFactory.es256($0, key: $1) }
        #expect(claims.subject == "client-7")
        #expect(claims.mayPublish(device: "veh-1"))
    }

    @Test(arguments: [0, 100, 255])
    func flippedRS256SignatureByteIsRefused(index: Int) throws {
        let keys = try TestKeys.shared.get()
        let verifier = try keys.rsa.verifier()
        let token = try TokenFactory.rs256(TestSecrets.payload(), key: keys.rsa)
        #expect(TestSecrets.refusal(verifier, TokenMutation.flippingSignatureByte(token, at: index)) == .badSignature)
    }

    @Test(arguments: [0, 31, 32, 63])
    func flippedES256SignatureByteIsRefused(index: Int) throws {
        let keys = try TestKeys.shared.get()
        let verifier = try keys.ec.verifier()
        let token = try TokenFactory.es256(TestSecrets.payload(), key: keys.ec)
        #expect(TestSecrets.refusal(verifier, TokenMutation.flippingSignatureByte(token, at: index)) == .badSignature)
    }

    @Test func tokenSignedByAnotherKeyIsRefused() throws {
        let keys = try TestKeys.shared.get()
        let rsaVerifier = try keys.rsa.verifier()
        let ecVerifier = try keys.ec.verifier()
        let rsaToken = try TokenFactory.rs256(TestSecrets.payload(), key: keys.otherRSA)
        let ecToken = try TokenFactory.es256(TestSecrets.payload(), key: keys.otherEC)
        #expect(TestSecrets.refusal(rsaVerifier, rsaToken) == .badSignature)
        #expect(TestSecrets.refusal(ecVerifier, ecToken) == .badSignature)
    }

    @Test func es256SignatureInDERFormIsRefused() throws {
        let keys = try TestKeys.shared.get()
        let verifier = try keys.ec.verifier()
        let input = TokenFactory.signingInput(header: TokenFactory.es256Header, payload: TestSecrets.payload())
        let der = try OpenSSLTool.run(
            ["dgst", "-sha256", "-sign", keys.ec.privateKeyPath, "-binary"], input: Array(input.utf8))
        let token = input + "." + TokenFactory.base64URL(der)
        #expect(TestSecrets.refusal(verifier, token) == .badSignature)
    }

    @Test func es256SignatureOfZerosIsRefused() throws {
        let keys = try TestKeys.shared.get()
        let verifier = try keys.ec.verifier()
        let token = try TokenFactory.es256(TestSecrets.payload(), key: keys.ec)
        let zeros = TokenMutation.replacingSignature(token, with: [UInt8](repeating: 0, count: 64))
        #expect(TestSecrets.refusal(verifier, zeros) == .badSignature)
    }

    @Test func verifiesConcurrently() async throws {
        let keys = try TestKeys.shared.get()
        let rsa = try keys.rsa.verifier()
        let ec = try keys.ec.verifier()
        let rsaToken = try TokenFactory.rs256(TestSecrets.payload(), key: keys.rsa)
        let ecToken = try TokenFactory.es256(TestSecrets.payload(), key: keys.ec)
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let (verifier, token) = index.isMultiple(of: 2) ? (rsa, rsaToken) : (ec, ecToken)
                    return (try? verifier.verify(token: token, now: TestSecrets.nowDate)) != nil
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == 64)
    }
}
