import Locking

/// Whether a Redis link is connected, stopped, and why it last failed; shared by the
/// link's thread and its callers.
final class LinkStatus: Sendable {
    private struct State {
        var up = false
        var stopped = false
        var lastFailure = "not connected yet"
    }

    private let state = Locked(State())

    /// Whether the connection is open.
    var isUp: Bool { state.withLock { $0.up } }

    /// Whether `stop` was called.
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Marks the link stopped.
    func stop() { state.withLock { $0.stopped = true } }

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
