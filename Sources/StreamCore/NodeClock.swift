import Foundation

/// The time a node reads and waits on: the wall clock for token checks, a monotonic
/// clock for the error budget, and the sleeps of the token timers. The server uses `SystemClock`; a test injects one it moves by hand,
/// so the timers run without real sleeps.
public protocol NodeClock: Sendable {
    /// The wall-clock time now, as token claims count it.
    var now: Date { get }
    /// The monotonic time now, which never jumps with the wall clock: rate budgets run on it.
    var instant: ContinuousClock.Instant { get }
    /// Waits `duration`; throws `CancellationError` when the waiting task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The real clock: `Date()`, `ContinuousClock.now` and `Task.sleep`.
public struct SystemClock: NodeClock {
    /// The real clock.
    public init() {}

    public var now: Date { Date() }

    public var instant: ContinuousClock.Instant { .now }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
