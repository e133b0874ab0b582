import Locking
import LocstreamProtocol

/// Paces the node's reads of aggregated areas, whose cost grows with the devices inside:
/// one read at a time, and after a read that took `d`, no other starts for `spacing × d`.
/// So however many aggregated subscriptions a node holds, their reads keep the broker
/// busy at most `1 / (1 + spacing)` of the time; a world-wide read on Redis took 425 ms
/// over 200,000 devices (a Lua script: Redis serves nothing else meanwhile), and unpaced,
/// one subscriber would have kept it 30 % busy. A small area reads in well under a
/// millisecond and is not slowed.
final class AreaReadPacer: Sendable {
    private struct State {
        var reading = false
        var nextStart = ContinuousClock.now
    }

    private let spacing: Double
    private let state = Locked(State())

    /// A pacer leaving `spacing` times each read's duration idle after it.
    init(spacing: Double = 4) {
        self.spacing = spacing
    }

    /// The last known positions in `area`, read from `broker` in turn. Throws
    /// `CancellationError` when the calling task is cancelled while it waits.
    func read(_ area: GeoArea, from broker: any Broker) async throws -> [EncodedLocation] {
        while let wait = claim() {
            try await Task.sleep(for: wait)
        }
        guard !Task.isCancelled else {
            release(after: .zero, from: .now)
            throw CancellationError()
        }
        let started = ContinuousClock.now
        defer { release(after: ContinuousClock.now - started, from: .now) }
        return try await broker.lastKnown(in: area)
    }

    /// Ends a read that took `duration`: the next may start `spacing × duration` after `end`.
    private func release(after duration: Duration, from end: ContinuousClock.Instant) {
        state.withLock { state in
            state.reading = false
            state.nextStart = end + duration * spacing
        }
    }

    /// Nil when the caller may read now (it is then marked reading); otherwise how long to wait
    /// before asking again.
    private func claim() -> Duration? {
        let now = ContinuousClock.now
        return state.withLock { state -> Duration? in
            guard !state.reading else { return .milliseconds(5) }
            guard now >= state.nextStart else { return state.nextStart - now }
            state.reading = true
            return nil
        }
    }
}
