import Auth
import Foundation
import Testing

/// Required claims, claim types, and deny-by-default rights.
@Suite struct ClaimTests {
    private let exp = TestSecrets.now + 600

    @Test func missingSubjectIsRefused() throws {
        let token = try TokenFactory.hs256(#"{"exp":\#(exp)}"#)
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), token) == .missingClaim)
    }

    @Test func missingExpiryIsRefused() throws {
        let token = try TokenFactory.hs256(#"{"sub":"client-7","devices":["*"]}"#)
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), token) == .missingClaim)
    }

    @Test func nullRequiredClaimsAreMissing() throws {
        let verifier = try TestSecrets.hs256Verifier()
        #expect(TestSecrets.refusal(verifier, try TokenFactory.hs256(#"{"sub":null,"exp":\#(exp)}"#)) == .missingClaim)
        #expect(TestSecrets.refusal(verifier, try TokenFactory.hs256(#"{"sub":"c","exp":null}"#)) == .missingClaim)
    }

    @Test(arguments: [
        #""sub":7"#, #""sub":"""#, #""sub":["a"]"#, #""sub":"c","devices":"veh-*""#, #""sub":"c","devices":["a",1]"#,
        #""sub":"c","devices":{"a":1}"#, #""sub":"c","publish":[null]"#, #""sub":"c","areas":1"#,
        #""sub":"c","areas":"true""#, #""sub":"c","areas":0"#,
    ])
    func wronglyTypedClaimIsRefused(members: String) throws {
        let token = try TokenFactory.hs256(#"{\#(members),"exp":\#(exp)}"#)
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), token) == .invalidClaim)
    }

    @Test(arguments: ["devices", "publish"])
    func patternListsAreBounded(claim: String) throws {
        let verifier = try TestSecrets.hs256Verifier()
        func token(_ patterns: [String]) throws -> String {
            let list = patterns.map { "\"\($0)\"" }.joined(separator: ",")
            return try TokenFactory.hs256(#"{"sub":"c","exp":\#(exp),"\#(claim)":[\#(list)]}"#)
        }
        let prefixes = (0..<PatternSet.maxPatterns).map { "v\($0)*" }
        let general = (0..<PatternSet.maxGeneral).map { "*-\($0)" }
        #expect(TestSecrets.refusal(verifier, try token(prefixes)) == nil)
        #expect(TestSecrets.refusal(verifier, try token(prefixes + ["x"])) == .invalidClaim)
        #expect(TestSecrets.refusal(verifier, try token(general + ["a"])) == nil)
        #expect(TestSecrets.refusal(verifier, try token(general + ["a*b"])) == .invalidClaim)
    }

    @Test func nullListsAllowNothing() throws {
        let token = try TokenFactory.hs256(#"{"sub":"c","exp":\#(exp),"devices":null,"publish":null,"areas":null}"#)
        let claims = try TestSecrets.hs256Verifier().verify(token: token, now: TestSecrets.nowDate)
        #expect(!claims.maySubscribe(device: "x") && !claims.mayPublish(device: "x") && !claims.mayUseAreas)
    }

    @Test func areasFalseIsFalse() throws {
        let token = try TokenFactory.hs256(#"{"sub":"c","exp":\#(exp),"areas":false,"devices":[]}"#)
        let claims = try TestSecrets.hs256Verifier().verify(token: token, now: TestSecrets.nowDate)
        #expect(!claims.mayUseAreas)
        #expect(!claims.maySubscribe(device: ""))
    }

    @Test func unknownClaimsAreIgnored() throws {
        let token = try TokenFactory.hs256(#"{"sub":"c","exp":\#(exp),"iss":"me","aud":["x"],"jti":"1","n":{"a":[]}}"#)
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), token) == nil)
    }

    @Test func unicodeSubjectAndPatternsRoundTrip() throws {
        let token = try TokenFactory.hs256(#"{"sub":"kurier-ü","exp":\#(exp),"devices":["fahrzeug-ü*"]}"#)
        let claims = try TestSecrets.hs256Verifier().verify(token: token, now: TestSecrets.nowDate)
        #expect(claims.subject == "kurier-ü")
        #expect(claims.maySubscribe(device: "fahrzeug-ü7"))
        #expect(!claims.maySubscribe(device: "fahrzeug-u7"))
    }

    @Test func claimsCanBeMadeDirectly() {
        let claims = Claims(subject: "c", expiresAt: TestSecrets.nowDate, devicePatterns: ["veh-*"], areas: true)
        #expect(claims.maySubscribe(device: "veh-1") && claims.mayUseAreas && !claims.mayPublish(device: "veh-1"))
        #expect(claims == Claims(subject: "c", expiresAt: TestSecrets.nowDate, devicePatterns: ["veh-*"], areas: true))
    }
}
