import Locking

/// Work that other threads hand to an lws service thread.
///
/// Writers post the id of a connection that has something for the loop (frames to
/// write, reading to resume, a response ready); the loop's `ServiceExecutor` posts the
/// jobs of the tasks that run on the service thread. Posts are coalesced: however many
/// arrive before the loop has emptied the mailbox, they cost one `lws_cancel_service`,
/// and posts made while the loop is still draining (by the jobs it runs) cost none.
final class LoopMailbox<Command: Sendable>: JobMailbox {
    /// What one drain takes out.
    struct Work {
        var commands: [Command] = []
        var jobs: [UnownedJob] = []
        var connections: [ConnectionID] = []
    }

    private struct State {
        var work = Work()
        /// A wake-up is on its way, or the loop is draining: a post need not wake it.
        var wakePending = false
        /// The loop has stopped: jobs are refused, so their executor runs them elsewhere.
        var isStopped = false
    }

    private let state = Locked(State())
    let waker = ContextWaker()

    /// Asks the loop to look at `connection` soon.
    func post(_ connection: ConnectionID) {
        post { $0.connections.append(connection) }
    }

    /// Asks the loop to run `command` soon.
    func post(command: Command) {
        post { $0.commands.append(command) }
    }

    func post(job: UnownedJob) -> Bool {
        let (accepted, wake) = state.withLock { state -> (Bool, Bool) in
            guard !state.isStopped else { return (false, false) }
            state.work.jobs.append(job)
            defer { state.wakePending = true }
            return (true, !state.wakePending)
        }
        if wake { waker.wake() }
        return accepted
    }

    private func post(_ add: (inout Work) -> Void) {
        let wake = state.withLock { state in
            add(&state.work)
            defer { state.wakePending = true }
            return !state.wakePending
        }
        if wake { waker.wake() }
    }

    /// Called on the service thread: everything posted so far, or nil when there is
    /// nothing, which ends the drain (the next post wakes the loop again). Until then,
    /// posts are collected without a wake-up, so call it again until it returns nil.
    func drain() -> Work? {
        state.withLock { state in
            let isEmpty = state.work.commands.isEmpty && state.work.jobs.isEmpty && state.work.connections.isEmpty
            guard !isEmpty else {
                state.wakePending = false
                return nil
            }
            defer { state.work = Work() }
            return state.work
        }
    }

    /// The loop has stopped: refuses jobs from now on and returns those still queued.
    func stop() -> [UnownedJob] {
        state.withLock { state in
            state.isStopped = true
            defer { state.work.jobs = [] }
            return state.work.jobs
        }
    }
}
