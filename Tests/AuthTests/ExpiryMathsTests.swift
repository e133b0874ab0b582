import Auth
import Foundation
import Testing

/// Token times at the ends of `Int64`: exact, and never a trap (issue 13, item 3).
@Suite struct ExpiryMathsTests {
    private let horizon = Duration.seconds(ExpiryMaths.horizonSeconds)

    @Test func unixSecondsRoundDownAndClamp() {
        #expect(ExpiryMaths.unixSeconds(of: Date(timeIntervalSince1970: 1_700_000_000.9)) == 1_700_000_000)
        #expect(ExpiryMaths.unixSeconds(of: Date(timeIntervalSince1970: -0.5)) == -1)
        #expect(ExpiryMaths.unixSeconds(of: Date(timeIntervalSince1970: 9.3e18)) == .max)
        #expect(ExpiryMaths.unixSeconds(of: Date(timeIntervalSince1970: 0x1p63)) == .max)
        #expect(ExpiryMaths.unixSeconds(of: Date(timeIntervalSince1970: -0x1p63)) == .min)
        #expect(ExpiryMaths.unixSeconds(of: Date(timeIntervalSince1970: -1e300)) == .min)
        #expect(ExpiryMaths.unixSeconds(of: Date(timeIntervalSince1970: .infinity)) == .max)
        #expect(ExpiryMaths.unixSeconds(of: Date(timeIntervalSince1970: .nan)) == 0)
    }

    @Test func timeLeftIsExactNearNow() {
        let now = Date(timeIntervalSince1970: 1_700_000_000.25)
        #expect(ExpiryMaths.timeLeft(until: 1_700_000_010, now: now) == .milliseconds(9750))
        #expect(ExpiryMaths.timeLeft(until: 1_699_999_990, now: now) == .milliseconds(-10_250))
    }

    @Test(arguments: [Int64.max, Int64.max - 1, 1 << 53, Int64.min, Int64.min + 1, -(1 << 53)])
    func timeLeftIsClampedToAHundredYears(seconds: Int64) {
        let left = ExpiryMaths.timeLeft(until: seconds, now: TestSecrets.nowDate)
        #expect(left == (seconds > 0 ? horizon : .zero - horizon))
    }

    @Test func claimsKeepExpiryExactly() throws {
        let token = try TokenFactory.hs256(#"{"sub":"c","exp":9223372036854775807,"iat":-9223372036854775808}"#)
        let claims = try TestSecrets.hs256Verifier().verify(token: token, now: TestSecrets.nowDate)
        #expect(claims.expirySeconds == .max)
        #expect(claims.issuedAtSeconds == .min)
        #expect(claims.timeLeft(at: TestSecrets.nowDate) == horizon)
    }

    @Test func extremeNotBeforeIsRefusedWithoutATrap() throws {
        let token = try TokenFactory.hs256(#"{"sub":"c","exp":9223372036854775807,"nbf":9223372036854775807}"#)
        #expect(TestSecrets.refusal(try TestSecrets.hs256Verifier(leeway: .seconds(60)), token) == .notYetValid)
    }
}
