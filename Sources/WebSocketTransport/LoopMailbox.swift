import Locking

/// Work that other threads hand to an lws service thread.
///
/// Writers post the id of a connection that has something for the loop (frames to
/// write, reading to resume, a response ready); the loop's `ServiceExecutor` posts the
/// jobs of the tasks that run on the service thread. Posts are coalesced: however many
/// arrive before the loop has emptied the mailbox, they cost one `lws_cancel_service`,
/// and posts made while the loop is still draining (by the jobs it runs) cost none.
///
/// Jobs of `.high` priority or above are urgent: the answers to a subscriber's messages
/// (a switch and its ack), which run before the jobs that deliver frames, and which a
/// drain checks for between those (`hasUrgentJobs`).
final class LoopMailbox<Command: Sendable>: JobMailbox {
    /// What one drain takes out.
    struct Work {
        var commands: [Command] = []
        /// Jobs of `.high` priority or above, in the order they were posted.
        var urgentJobs: [UnownedJob] = []
        /// The other jobs, in the order they were posted.
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
            if job.priority.rawValue >= TaskPriority.high.rawValue {
                state.work.urgentJobs.append(job)
            } else {
                state.work.jobs.append(job)
            }
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
            let isEmpty =
                state.work.commands.isEmpty && state.work.urgentJobs.isEmpty && state.work.jobs.isEmpty
                && state.work.connections.isEmpty
            guard !isEmpty else {
                state.wakePending = false
                return nil
            }
            defer { state.work = Work() }
            return state.work
        }
    }

    /// Whether an urgent job waits: a drain running other jobs checks between them.
    var hasUrgentJobs: Bool {
        state.withLock { !$0.work.urgentJobs.isEmpty }
    }

    /// Puts `jobs` and `connections`, taken out by `drain` but not run or serviced, back
    /// before those posted since, so the next drain takes them first, in their order.
    func putBack(jobs: ArraySlice<UnownedJob>, connections: ArraySlice<ConnectionID>) {
        guard !jobs.isEmpty || !connections.isEmpty else { return }
        state.withLock { state in
            state.work.jobs.insert(contentsOf: jobs, at: 0)
            state.work.connections.insert(contentsOf: connections, at: 0)
        }
    }

    /// How many connections are posted now: a mark for `takeConnections(postedAfter:)`.
    var connectionMark: Int {
        state.withLock { $0.work.connections.count }
    }

    /// Takes the connections posted since `mark` (those an urgent job queued frames for),
    /// leaving the earlier ones for the drain.
    func takeConnections(postedAfter mark: Int) -> ArraySlice<ConnectionID> {
        state.withLock { state in
            guard state.work.connections.count > mark else { return [] }
            defer { state.work.connections.removeSubrange(mark...) }
            return state.work.connections[mark...]
        }
    }

    /// The loop has stopped: refuses jobs from now on and returns those still queued.
    func stop() -> [UnownedJob] {
        state.withLock { state in
            state.isStopped = true
            defer {
                state.work.urgentJobs = []
                state.work.jobs = []
            }
            return state.work.urgentJobs + state.work.jobs
        }
    }
}
