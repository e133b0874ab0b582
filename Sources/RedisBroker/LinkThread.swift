import Foundation
import Locking
import Observability

/// A Redis link's thread, and what other threads use to steer it: whether the link is
/// connected or stopped and why it last failed, and the pipe that wakes the thread.
final class LinkThread: Sendable {
    private struct State {
        var up = false
        var stopped = false
        var lastFailure = "not connected yet"
    }

    private let state = Locked(State())
    private let name: String
    /// Wakes the thread from its `poll`.
    let wakePipe = WakePipe()

    /// A link thread called `name` (not started).
    init(name: String) { self.name = name }

    /// Starts the thread running `body`.
    func start(_ body: @escaping @Sendable () -> Void) {
        NamedThread.start(name, body)
    }

    /// Whether the connection is open.
    var isUp: Bool { state.withLock { $0.up } }

    /// Whether `stop` was called.
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Marks the link stopped and wakes the thread to notice.
    func stop() {
        state.withLock { $0.stopped = true }
        wakePipe.wake()
    }

    /// Why a call cannot be served now, or nil when the link is up.
    var refusal: RedisFailure? {
        state.withLock { state in
            guard state.up, !state.stopped else { return RedisFailure("Redis is unreachable (\(state.lastFailure))") }
            return nil
        }
    }

    /// Records the link going up or down (with `reason`); true when this is news worth
    /// logging: a change, or a new reason for staying down.
    func set(up: Bool, reason: String) -> Bool {
        state.withLock { state in
            defer {
                state.up = up
                if !up { state.lastFailure = reason }
            }
            return state.up != up || (!up && state.lastFailure != reason)
        }
    }
}
