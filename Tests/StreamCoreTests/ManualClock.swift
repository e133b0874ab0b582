import Foundation
import Locking
import LocstreamProtocol
import StreamCore

/// A `NodeClock` that moves only when a test says so: `sleep` waits until `advance`
/// has moved the time past its deadline (or its task is cancelled), so token timers
/// run without real sleeps.
final class ManualClock: NodeClock {
    private struct Sleeper {
        let id: UInt64
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var elapsed = Duration.zero
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var cancelled: Set<UInt64> = []
    }

    private let state: Locked<State>
    private let origin = ContinuousClock.now

    /// A clock standing at `start`.
    init(at start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Locked(State(now: start))
    }

    var now: Date { state.withLock { $0.now } }

    var instant: ContinuousClock.Instant { origin + state.withLock { $0.elapsed } }

    /// How many tasks are waiting on this clock.
    var sleeping: Int { state.withLock { $0.sleepers.count } }

    func sleep(for duration: Duration) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, CancellationError>? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    let deadline = state.now.addingTimeInterval(duration.seconds)
                    guard deadline > state.now else { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return Sleeper?.none
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the time on by `duration` and wakes every sleeper whose deadline it reached.
    func advance(by duration: Duration) {
        let due = state.withLock { state in
            state.now = state.now.addingTimeInterval(duration.seconds)
            state.elapsed += duration
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Waits (yielding, up to a generous bound) until `count` tasks sleep on this clock.
    func waitForSleepers(_ count: Int = 1) async -> Bool {
        for _ in 0..<100_000 {
            if sleeping >= count { return true }
            await Task.yield()
        }
        return sleeping >= count
    }
}
