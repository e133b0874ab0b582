import Auth
import Foundation
import Testing

/// Only the configured algorithm is accepted: `none`, other algorithms and algorithm
/// confusion are refused before any signature is checked.
@Suite struct AlgorithmTests {
    /// One verifier of each kind.
    private static func verifiers() throws -> [JWTVerifier] {
        let keys = try TestKeys.shared.get()
        return [
            try TestSecrets.hs256Verifier(),
            try keys.rsa.verifier(),
            try keys.ec.verifier(),
        ]
    }

    @Test(arguments: [
        #"{"alg":"none","typ":"JWT"}"#, #"{"alg":"None"}"#, #"{"alg":"NONE"}"#, #"{"alg":"nOnE"}"#, #"{"alg":""}"#,
    ])
    func unsignedTokenIsRefused(header: String) throws {
        for verifier in try Self.verifiers() {
            let token = TokenFactory.unsigned(TestSecrets.payload(), header: header)
            #expect(TestSecrets.refusal(verifier, token) == .algorithm)
        }
    }

    @Test func noneWithAValidLookingSignatureIsRefused() throws {
        let verifier = try TestSecrets.hs256Verifier()
        let real = try TokenFactory.hs256(TestSecrets.payload())
        let none = TokenFactory.unsigned(TestSecrets.payload())
        let spliced = none + TokenMutation.parts(real)[2]
        #expect(TestSecrets.refusal(verifier, spliced) == .algorithm)
    }

    @Test func missingOrNonStringAlgorithmIsRefused() throws {
        let verifier = try TestSecrets.hs256Verifier()
        for header in [#"{"typ":"JWT"}"#, #"{"alg":null}"#, #"{"alg":256}"#, #"{"alg":["HS256"]}"#] {
            let token = try TokenFactory.hs256(TestSecrets.payload(), header: header)
            #expect(TestSecrets.refusal(verifier, token) == .algorithm, "header \(header)")
        }
    }

    @Test func algorithmNameIsCaseSensitive() throws {
        let token = try TokenFactory.hs256(TestSecrets.payload(), header: #"{"alg":"hs256"}"#)
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), token) == .algorithm)
    }

    @Test func otherHMACAlgorithmIsRefused() throws {
        let token = try TokenFactory.hs256(TestSecrets.payload(), header: #"{"alg":"HS512"}"#)
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), token) == .algorithm)
    }

    @Test func hs256TokenSignedWithTheRSAPublicKeyIsRefused() throws {
        let keys = try TestKeys.shared.get()
        let verifier = try keys.rsa.verifier()
        let token = try TokenFactory.hs256(TestSecrets.payload(), secret: Array(keys.rsa.publicKeyPEM.utf8))
        #expect(TestSecrets.refusal(verifier, token) == .algorithm)
    }

    @Test func hs256TokenSignedWithTheECPublicKeyIsRefused() throws {
        let keys = try TestKeys.shared.get()
        let verifier = try keys.ec.verifier()
        let token = try TokenFactory.hs256(TestSecrets.payload(), secret: Array(keys.ec.publicKeyPEM.utf8))
        #expect(TestSecrets.refusal(verifier, token) == .algorithm)
    }

    @Test func hs256TokenToAnRS256VerifierIsRefused() throws {
        let keys = try TestKeys.shared.get()
        let verifier = try keys.rsa.verifier()
        #expect(TestSecrets.refusal(verifier, try TokenFactory.hs256(TestSecrets.payload())) == .algorithm)
    }

    @Test func rs256TokenToAnHS256VerifierIsRefused() throws {
        let keys = try TestKeys.shared.get()
        let token = try TokenFactory.rs256(TestSecrets.payload(), key: keys.rsa)
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), token) == .algorithm)
    }

    @Test func rs256AndES256AreNotInterchangeable() throws {
        let keys = try TestKeys.shared.get()
        let rsaVerifier = try keys.rsa.verifier()
        let ecVerifier = try keys.ec.verifier()
        let ecToken = try TokenFactory.es256(TestSecrets.payload(), key: keys.ec)
        let rsaToken = try TokenFactory.rs256(TestSecrets.payload(), key: keys.rsa)
        #expect(TestSecrets.refusal(rsaVerifier, ecToken) == .algorithm)
        #expect(TestSecrets.refusal(ecVerifier, rsaToken) == .algorithm)
        // An RS256 signature relabelled ES256 passes the name check and fails the signature check.
        let relabelled = try TokenFactory.rs256(TestSecrets.payload(), key: keys.rsa, header: #"{"alg":"ES256"}"#)
        #expect(TestSecrets.refusal(ecVerifier, relabelled) == .badSignature)
    }

    @Test func criticalHeaderExtensionIsRefused() throws {
        let header = #"{"alg":"HS256","crit":["exp"],"exp":1}"#
        let token = try TokenFactory.hs256(TestSecrets.payload(), header: header)
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), token) == .malformed)
    }

    @Test func unknownHeaderMembersAreIgnored() throws {
        let header = #"{"alg":"HS256","typ":"JWT","kid":"k1","x5u":"https://example.invalid/k"}"#
        let token = try TokenFactory.hs256(TestSecrets.payload(), header: header)
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), token) == nil)
    }

    @Test func messageEchoesOnlyRegisteredAlgorithmNames() throws {
        let verifier = try TestSecrets.hs256Verifier()
        let known = try TokenFactory.hs256(TestSecrets.payload(), header: #"{"alg":"RS256"}"#)
        let unknown = try TokenFactory.hs256(TestSecrets.payload(), header: #"{"alg":"<script>\n"}"#)
        let knownFailure = try #require(TestSecrets.failure(verifier, known))
        let unknownFailure = try #require(TestSecrets.failure(verifier, unknown))
        #expect(knownFailure.message.contains("\"RS256\""))
        #expect(unknownFailure.reason == .algorithm)
        #expect(!unknownFailure.message.contains("script"))
    }
}
