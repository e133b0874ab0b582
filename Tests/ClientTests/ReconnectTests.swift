import Testing

@testable import Client

/// Reconnecting: the backoff `subscribe` gives the library (its `since` is the library's,
/// tested in LocstreamClientTests).
@Suite("reconnect and resume")
struct ReconnectTests {
    @Test("backoff grows exponentially, is capped, and jitters within the upper half")
    func backoff() {
        let backoff = SubscribeCommand.backoff
        #expect(backoff.delay(attempt: 1, jitter: 0) == .milliseconds(250))
        #expect(backoff.delay(attempt: 1, jitter: 1) == .milliseconds(500))
        #expect(backoff.delay(attempt: 3, jitter: 0.5) == .milliseconds(1500))
        #expect(backoff.delay(attempt: 20, jitter: 1) == .seconds(30))
        #expect(backoff.delay(attempt: 10_000, jitter: 0) == .seconds(15))
        for attempt in 1...12 {
            let ceiling = min(.seconds(30), .milliseconds(500) * (1 << (attempt - 1)))
            for jitter in stride(from: 0.0, through: 1, by: 0.1) {
                #expect((ceiling / 2...ceiling).contains(backoff.delay(attempt: attempt, jitter: jitter)))
            }
        }
    }
}
