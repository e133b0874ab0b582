/// How long a sequence waits before reconnecting: capped exponential backoff with jitter.
///
/// Attempt `n` (from 1) waits a random time in the upper half of `initial × 2^(n-1)`, never
/// more than `cap`, so clients dropped together do not all come back in the same instant.
/// The count starts again once a subscription is live.
public struct ReconnectPolicy: Sendable, Equatable {
    private let backoff: Backoff

    /// Delays from `initial`, doubling per attempt, up to `cap`.
    public init(initial: Duration = .milliseconds(250), cap: Duration = .seconds(30)) {
        backoff = Backoff(initial: initial, cap: cap)
    }

    /// The longest wait of attempt `attempt` (from 1).
    public func ceiling(attempt: Int) -> Duration { backoff.ceiling(attempt: attempt) }

    /// The wait before attempt `attempt`, `jitter` (in `0...1`) of the way through the upper
    /// half of its ceiling.
    public func delay(attempt: Int, jitter: Double) -> Duration { backoff.delay(attempt: attempt, jitter: jitter) }

    /// The wait before attempt `attempt`, with random jitter.
    func delay(attempt: Int) -> Duration { delay(attempt: attempt, jitter: Double.random(in: 0...1)) }
}
