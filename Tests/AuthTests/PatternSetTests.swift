import Auth
import LocstreamProtocol
import TestSupport
import Testing

/// A claim's compiled pattern list agrees with testing each glob in turn, whatever the mix
/// of exact ids, prefixes and other shapes, and a large list costs no more than a small one.
@Suite struct PatternSetTests {
    @Test func agreesWithTestingEachGlob() {
        var generator = SplitMix64(seed: 7)
        for _ in 0..<3000 {
            let patterns = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                generator.text(alphabet: ["a", "b", "*"], maximumLength: 5)
            }
            let set = PatternSet(patterns)
            for _ in 0..<10 {
                let id = generator.text(alphabet: ["a", "b"], maximumLength: 6)
                let expected = patterns.contains { GlobPattern($0).matches(id) }
                #expect(set.matches(id) == expected, "\(patterns) \(id)")
            }
        }
    }

    @Test func prefixesCoveredByShorterOnesStillMatch() {
        let set = PatternSet(["veh-1*", "veh-*", "veh-12*", "courier-9", "a*"])
        for id in ["veh-1", "veh-12", "veh-", "veh-zzz", "courier-9", "a", "ab"] {
            #expect(set.matches(id), "\(id)")
        }
        for id in ["veh", "courier-90", "courier-", "b", ""] {
            #expect(!set.matches(id), "\(id)")
        }
    }

    @Test func shapesAreSorted() {
        #expect(PatternSet(["*"]).matchesEverything && !PatternSet(["**", "a*"]).matchesEverything)
        #expect(PatternSet(["a", "a*", "*a", "a*b", "**"]).generalCount == 3)
    }

    @Test(.timeLimit(.minutes(1)))
    func aThousandPrefixesCostAboutOne() {
        let many = PatternSet((0..<PatternSet.maxPatterns).map { "fleet-\($0)-*" })
        let one = PatternSet(["fleet-999-*"])
        let ids = (0..<24_000).map { "fleet-\($0 % 1200)-truck" }
        #expect(ids.filter(many.matches).count == 20_000 && ids.filter(one.matches).count == 20)
        // Bisection: ten steps for a thousand prefixes, where testing each would take a
        // thousand. The fastest of five runs each, so a preempted run does not decide.
        let manyTime = fastest(of: 5) { _ = ids.filter(many.matches) }
        let oneTime = fastest(of: 5) { _ = ids.filter(one.matches) }
        #expect(manyTime < oneTime * 20, "1,000 prefixes took \(manyTime), one took \(oneTime)")
    }

    private func fastest(of runs: Int, _ body: () -> Void) -> Duration {
        (0..<runs).map { _ in ContinuousClock().measure(body) }.min()!
    }
}
