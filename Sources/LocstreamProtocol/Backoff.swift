/// Reconnect delays: attempt `n` (from 1) has a ceiling of `initial × 2^(n-1)`, never above
/// `cap`. `take()` waits the whole ceiling and `reset()` starts again from `initial`;
/// `delay(attempt:jitter:)` draws from the upper half of the ceiling ("equal jitter"), so
/// that many clients dropped at once do not all come back in the same instant, while the
/// delay still grows a little each time and never collapses to zero.
package struct Backoff: Sendable, Equatable {
    /// The first ceiling.
    package let initial: Duration
    /// The largest ceiling.
    package let cap: Duration
    /// The attempts `take()` has counted since the last `reset()`.
    package private(set) var attempt = 0

    /// Ceilings from `initial`, doubling, never above `cap`.
    package init(initial: Duration, cap: Duration) {
        self.initial = initial
        self.cap = cap
    }

    /// The ceiling of attempt `attempt` (from 1; anything lower counts as 1).
    package func ceiling(attempt: Int) -> Duration {
        var ceiling = initial
        var doublings = max(attempt, 1) - 1
        while doublings > 0 && ceiling < cap {
            ceiling *= 2
            doublings -= 1
        }
        return min(ceiling, cap)
    }

    /// The delay before attempt `attempt`: the upper half of its ceiling, `jitter` (uniform
    /// in `0...1`) of the way up.
    package func delay(attempt: Int, jitter: Double) -> Duration {
        let half = ceiling(attempt: attempt) / 2
        return half + half * min(max(jitter, 0), 1)
    }

    /// The next attempt's whole ceiling; the one after doubles.
    package mutating func take() -> Duration {
        attempt += 1
        return ceiling(attempt: attempt)
    }

    /// After a success, start again from `initial`.
    package mutating func reset() { attempt = 0 }
}
