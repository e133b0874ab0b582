import Auth
import Foundation
import Testing

@testable import Client

/// What `stream-client token inspect` reports, and how `token` reads rights and times.
@Suite("token report")
struct TokenReportTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let key: JWTKey

    init() throws {
        key = try JWTKey.secret("token-report-test-secret-0123456789abcdef")
    }

    /// The report on a token with `claims`, signed with `key`.
    private func report(_ claims: Claims, signature: TokenReport.Signature = .notChecked) throws -> TokenReport {
        TokenReport(try DecodedToken(try key.sign(claims)), signature: signature, now: now)
    }

    @Test("a valid token: rights quoted, expiry in words, verdict last")
    func valid() throws {
        let claims = Claims(
            subject: "ops", expirySeconds: 1_800_003_600, issuedAtSeconds: 1_800_000_000, devicePatterns: ["veh-*"])
        let lines = try report(claims, signature: .verified(key: key.description)).lines
        #expect(lines.contains("issued:     2027-01-15T08:00:00Z (now)"))
        #expect(lines.contains { $0.hasPrefix("expires:    2027-01-15T09:00:00Z (in 1h 0m)") })
        #expect(lines.contains("devices:    \"veh-*\""))
        #expect(lines.contains("publish:    none (it may publish for no device)"))
        #expect(lines.last == "verdict:    valid until 2027-01-15T09:00:00Z (in 1h 0m)")
        let unchecked = try report(claims)
        #expect(unchecked.acceptable && unchecked.lines.last?.hasSuffix("the signature is not checked") == true)
    }

    @Test("expired, not yet valid, a refused signature or claims a server refuses: not acceptable, and why")
    func refusals() throws {
        let expired = try report(Claims(subject: "a", expirySeconds: 1_799_999_000))
        #expect(!expired.acceptable && expired.lines.last == "verdict:    INVALID: the token has expired")
        let early = try report(Claims(subject: "a", expirySeconds: 1_800_009_000, notBeforeSeconds: 1_800_000_600))
        #expect(!early.acceptable && early.lines.last?.contains("not valid yet") == true)
        let forged = try report(
            Claims(subject: "a", expirySeconds: 1_800_009_000),
            signature: .refused(AuthError(.badSignature, "the signature does not verify")))
        #expect(!forged.acceptable && forged.lines.contains("signature:  REFUSED: the signature does not verify"))
        let empty = try report(Claims(subject: "", expirySeconds: 1_800_009_000))
        #expect(
            !empty.acceptable
                && empty.lines.last == "verdict:    INVALID: a server refuses its claims: \"sub\" is empty")
    }

    @Test("text from the token is escaped: no control character reaches the terminal")
    func escapes() throws {
        let lines = try report(Claims(subject: "a\u{1B}[31m", expirySeconds: 1_800_009_000, devicePatterns: ["\u{7}"]))
            .lines
        #expect(lines.allSatisfy { !$0.unicodeScalars.contains { $0.value < 0x20 } })
        #expect(lines.contains("subject:    \"a\\u001b[31m\""))
    }

    @Test("times: two units at most, now, and beyond the year 9999")
    func times() {
        #expect(
            [0, 5, 59, 60, 3599, 3600, 90_061].map(RelativeTime.span) == [
                "0s", "5s", "59s", "1m 0s", "59m 59s", "1h 0m", "1d 1h",
            ])
        #expect(RelativeTime.describe(.max, from: now).hasPrefix("9223372036854775807 s after 1970 (in 36600d"))
    }

    @Test("rights: globs over device ids, separated by commas or blanks, repeats dropped; anything else refused")
    func patterns() throws {
        #expect(try TokenPatterns.parse("veh-*, depot-1 veh-*,,*") == ["veh-*", "depot-1", "*"])
        #expect(throws: TargetSyntax.Failure.self) { try TokenPatterns.parse("veh/1") }
    }
}
