import Auth
import Foundation
import Testing

/// `exp`, `nbf` and `iat` at and around their limits, with and without leeway.
@Suite struct TimeClaimTests {
    private let now = TestSecrets.now

    /// An HS256 token whose payload has `sub` plus the given time members.
    private func token(_ members: String) throws -> String {
        try TokenFactory.hs256(#"{"sub":"c",\#(members)}"#)
    }

    @Test func expiredTokenIsRefused() throws {
        let verifier = try TestSecrets.hs256Verifier()
        #expect(TestSecrets.refusal(verifier, try token(#""exp":\#(now - 1)"#)) == .expired)
        #expect(TestSecrets.refusal(verifier, try token(#""exp":\#(now)"#)) == .expired)
        #expect(TestSecrets.refusal(verifier, try token(#""exp":\#(now)"#), offset: -0.001) == nil)
        #expect(TestSecrets.refusal(verifier, try token(#""exp":\#(now + 1)"#)) == nil)
    }

    @Test func leewayExtendsExpiry() throws {
        let verifier = try TestSecrets.hs256Verifier(leeway: .seconds(30))
        #expect(verifier.leeway == .seconds(30))
        #expect(TestSecrets.refusal(verifier, try token(#""exp":\#(now - 29)"#)) == nil)
        #expect(TestSecrets.refusal(verifier, try token(#""exp":\#(now - 30)"#)) == .expired)
        #expect(TestSecrets.refusal(verifier, try token(#""exp":\#(now - 3600)"#)) == .expired)
    }

    @Test func notBeforeInTheFutureIsRefused() throws {
        let verifier = try TestSecrets.hs256Verifier()
        let early = try token(#""exp":\#(now + 600),"nbf":\#(now + 10)"#)
        #expect(TestSecrets.refusal(verifier, early) == .notYetValid)
        #expect(TestSecrets.refusal(verifier, early, offset: 10) == nil)
        #expect(TestSecrets.refusal(verifier, try token(#""exp":\#(now + 600),"nbf":\#(now)"#)) == nil)
    }

    /// Leeway applies alike to `nbf` and `iat` in the future.
    @Test(arguments: ["nbf", "iat"])
    func leewayAppliesToFutureTimes(claim: String) throws {
        let verifier = try TestSecrets.hs256Verifier(leeway: .seconds(30))
        #expect(TestSecrets.refusal(verifier, try token(#""exp":\#(now + 600),"\#(claim)":\#(now + 30)"#)) == nil)
        #expect(
            TestSecrets.refusal(verifier, try token(#""exp":\#(now + 600),"\#(claim)":\#(now + 31)"#)) == .notYetValid)
    }

    @Test func issuedInTheFutureIsRefused() throws {
        let verifier = try TestSecrets.hs256Verifier()
        #expect(TestSecrets.refusal(verifier, try token(#""exp":\#(now + 600),"iat":\#(now + 5)"#)) == .notYetValid)
        #expect(TestSecrets.refusal(verifier, try token(#""exp":\#(now + 600),"iat":\#(now)"#)) == nil)
        #expect(TestSecrets.refusal(verifier, try token(#""exp":\#(now + 600),"iat":\#(now - 86_400)"#)) == nil)
    }

    @Test func negativeLeewayCountsAsZero() throws {
        let verifier = try TestSecrets.hs256Verifier(leeway: .seconds(-30))
        #expect(verifier.leeway == .zero)
        #expect(TestSecrets.refusal(verifier, try token(#""exp":\#(now + 1)"#)) == nil)
    }

    @Test func integralNumbersInOtherNotationsAreAccepted() throws {
        let verifier = try TestSecrets.hs256Verifier()
        for exp in ["1700000600.0", "1.7000006e9", "17000006E2"] {
            let claims = try verifier.verify(token: try token(#""exp":\#(exp)"#), now: TestSecrets.nowDate)
            #expect(claims.expiresAt == Date(timeIntervalSince1970: 1_700_000_600), "exp \(exp)")
        }
    }

    @Test(arguments: [
        #""exp":1700000600.5"#, #""exp":"1700000600""#, #""exp":true"#, #""exp":1e30"#, #""exp":[1700000600]"#,
        #""exp":9223372036854775808"#, #""exp":1700000600,"nbf":1.5"#, #""exp":1700000600,"iat":false"#,
        #""exp":1700000600,"nbf":"0""#,
    ])
    func nonIntegerTimeIsRefused(members: String) throws {
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(), try token(members)) == .invalidClaim)
    }

    @Test func nullOptionalTimesReadAsAbsent() throws {
        let claims = try TestSecrets.hs256Verifier().verify(
            token: try token(#""exp":\#(now + 600),"nbf":null,"iat":null"#), now: TestSecrets.nowDate)
        #expect(claims.notBeforeSeconds == nil && claims.issuedAtSeconds == nil)
    }
}
