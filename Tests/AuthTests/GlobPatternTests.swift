import Auth
import LocstreamProtocol
import TestSupport
import Testing

/// `*`-only globs: the documented cases, a comparison with a reference matcher, and
/// linear time on patterns that make backtracking matchers explode.
@Suite struct GlobPatternTests {
    @Test func prefixPattern() {
        let pattern = GlobPattern("veh-*")
        #expect(pattern.matches("veh-1") && pattern.matches("veh-") && pattern.matches("veh-a*b"))
        #expect(!pattern.matches("veh") && !pattern.matches("xveh-1") && !pattern.matches("VEH-1"))
    }

    @Test func starAloneMatchesEverything() {
        for pattern in [GlobPattern("*"), GlobPattern("**"), GlobPattern("***")] {
            #expect(pattern.matches("") && pattern.matches("veh-1") && pattern.matches("*"))
        }
    }

    @Test func piecesInOrder() {
        let pattern = GlobPattern("a*b*c")
        for text in ["abc", "aXbYc", "abbc", "acbc", "abcabc", "a*b*c"] {
            #expect(pattern.matches(text), "\(text)")
        }
        for text in ["ab", "bc", "acb", "cba", "abcd", "xabc", "a", ""] {
            #expect(!pattern.matches(text), "\(text)")
        }
    }

    @Test func literalPatternMatchesOnlyItself() {
        let pattern = GlobPattern("veh-1")
        #expect(pattern.matches("veh-1"))
        #expect(!pattern.matches("veh-10") && !pattern.matches("veh-") && !pattern.matches("xveh-1"))
        #expect(GlobPattern("").matches("") && !GlobPattern("").matches("a"))
    }

    @Test func questionMarksAndBracketsAreLiteral() {
        #expect(GlobPattern("veh-?").matches("veh-?") && !GlobPattern("veh-?").matches("veh-1"))
        #expect(GlobPattern("[ab]*").matches("[ab]x") && !GlobPattern("[ab]*").matches("ax"))
        #expect(GlobPattern(#"veh\*"#).matches(#"veh\x"#))
    }

    @Test func prefixAndSuffixMayNotOverlap() {
        #expect(!GlobPattern("ab*ba").matches("aba"))
        #expect(GlobPattern("ab*ba").matches("abba"))
        #expect(!GlobPattern("*aa*aa*").matches("aaa"))
        #expect(GlobPattern("*aa*aa*").matches("aaaa"))
        #expect(!GlobPattern("a*a").matches("a"))
    }

    @Test func multiByteCharacters() {
        #expect(GlobPattern("ü*ß").matches("üxyzß") && GlobPattern("*é").matches("café"))
        #expect(!GlobPattern("café").matches("cafe\u{301}"))  // bytes, not canonical equivalence
    }

    @Test func emptyListAllowsNothing() {
        let claims = Claims(subject: "c", expiresAt: TestSecrets.nowDate)
        #expect(!claims.maySubscribe(device: "") && !claims.maySubscribe(device: "veh-1"))
        #expect(!claims.mayPublish(device: "veh-1"))
    }

    @Test func anyPatternInTheListAllows() {
        let claims = Claims(subject: "c", expiresAt: TestSecrets.nowDate, devicePatterns: ["veh-1", "courier-*"])
        #expect(claims.maySubscribe(device: "veh-1") && claims.maySubscribe(device: "courier-4"))
        #expect(!claims.maySubscribe(device: "veh-2"))
    }

    @Test func agreesWithAReferenceMatcher() {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<5000 {
            let pattern = generator.text(alphabet: ["a", "b", "*"], maximumLength: 8)
            let text = generator.text(alphabet: ["a", "b", "*"], maximumLength: 10)
            #expect(GlobPattern(pattern).matches(text) == reference(Array(pattern), Array(text)), "\(pattern) \(text)")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func pathologicalPatternsStayLinear() {
        let text = String(repeating: "a", count: 200_000)
        let patterns = [
            "a*a*a*a*b", "a*a*a*a*b*a", String(repeating: "a*", count: 200) + "b",
            "*" + String(repeating: "a", count: 500) + "b*",
            String(repeating: "*a", count: 1000) + "*b*", "*" + String(repeating: "ab", count: 100) + "*",
        ]
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for pattern in patterns {
                #expect(!GlobPattern(pattern).matches(text), "\(pattern.prefix(20))")
            }
            #expect(GlobPattern(String(repeating: "a*", count: 1000)).matches(text))
        }
        #expect(elapsed < .seconds(5), "took \(elapsed)")
    }

    /// The textbook dynamic-programming wildcard matcher, for comparison.
    private func reference(_ pattern: [Character], _ text: [Character]) -> Bool {
        var row = [Bool](repeating: false, count: text.count + 1)
        row[0] = true
        for symbol in pattern {
            var next = [Bool](repeating: false, count: text.count + 1)
            if symbol == "*" {
                next[0] = row[0]
                for index in 1...max(text.count, 1) where index <= text.count {
                    next[index] = row[index] || next[index - 1]
                }
            } else {
                for index in 1...max(text.count, 1) where index <= text.count {
                    next[index] = row[index - 1] && text[index - 1] == symbol
                }
            }
            row = next
        }
        return row[text.count]
    }
}
