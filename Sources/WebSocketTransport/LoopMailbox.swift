import Locking

/// Work that other threads hand to an lws service thread.
///
/// Writers post the id of a connection that has something for the loop (frames to
/// write, reading to resume, a response ready). Posts are coalesced: however many
/// arrive before the loop runs, they cost one `lws_cancel_service`.
final class LoopMailbox<Command: Sendable>: Sendable {
    private struct State {
        var connections: [ConnectionID] = []
        var commands: [Command] = []
        var wakePending = false
    }

    private let state = Locked(State())
    let waker = ContextWaker()

    /// Asks the loop to look at `connection` soon.
    func post(_ connection: ConnectionID) {
        let wake = state.withLock { state in
            state.connections.append(connection)
            defer { state.wakePending = true }
            return !state.wakePending
        }
        if wake { waker.wake() }
    }

    /// Asks the loop to run `command` soon.
    func post(command: Command) {
        let wake = state.withLock { state in
            state.commands.append(command)
            defer { state.wakePending = true }
            return !state.wakePending
        }
        if wake { waker.wake() }
    }

    /// Called on the service thread when it wakes: everything posted so far.
    func drain() -> (connections: [ConnectionID], commands: [Command]) {
        state.withLock { state in
            let drained = (state.connections, state.commands)
            state.connections = []
            state.commands = []
            state.wakePending = false
            return drained
        }
    }
}
