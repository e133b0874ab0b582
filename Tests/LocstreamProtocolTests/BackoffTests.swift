import Testing

@testable import LocstreamProtocol

/// The reconnect backoff both the Redis links and `stream-client subscribe` use.
@Suite("backoff")
struct BackoffTests {
    @Test("take doubles from initial up to the cap; reset starts again")
    func takeAndReset() {
        var backoff = Backoff(initial: .milliseconds(100), cap: .seconds(2))
        let taken = (0..<7).map { _ in backoff.take() }
        #expect(taken == [100, 200, 400, 800, 1600, 2000, 2000].map { Duration.milliseconds($0) })
        #expect(backoff.attempt == 7)
        backoff.reset()
        #expect(backoff.take() == .milliseconds(100))
    }

    @Test("Duration.seconds is the decimal count of seconds")
    func seconds() {
        #expect(Duration.milliseconds(1500).seconds == 1.5)
        #expect(Duration.zero.seconds == 0)
        #expect((Duration.seconds(-2)).seconds == -2)
    }
}
