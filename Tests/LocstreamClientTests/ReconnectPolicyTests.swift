import LocstreamClient
import Testing

@Suite("reconnect policy: capped exponential backoff with jitter")
struct ReconnectPolicyTests {
    let policy = ReconnectPolicy(initial: .milliseconds(100), cap: .seconds(2))

    @Test("ceilings double from the initial delay and stop at the cap")
    func ceilings() {
        let ceilings = (1...8).map { policy.ceiling(attempt: $0) }
        #expect(
            ceilings == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600),
                .seconds(2), .seconds(2), .seconds(2),
            ])
        #expect(policy.ceiling(attempt: 10_000) == .seconds(2), "no overflow after many attempts")
    }

    @Test("a delay lies in the upper half of its ceiling, placed by the jitter", arguments: 1...8)
    func jitterBounds(attempt: Int) {
        let ceiling = policy.ceiling(attempt: attempt)
        #expect(policy.delay(attempt: attempt, jitter: 0) == ceiling / 2)
        #expect(policy.delay(attempt: attempt, jitter: 1) == ceiling)
        #expect(policy.delay(attempt: attempt, jitter: 0.5) == ceiling * 3 / 4)
        #expect(policy.delay(attempt: attempt, jitter: 7) == ceiling, "jitter above 1 counts as 1")
        #expect(policy.delay(attempt: attempt, jitter: -1) == ceiling / 2, "jitter below 0 counts as 0")
    }
}
