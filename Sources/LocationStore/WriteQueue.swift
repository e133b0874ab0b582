import Dispatch
import Locking
import LocstreamProtocol

/// The bounded queue between the callers and the writer thread.
///
/// `submit` never blocks: it appends under a lock and wakes the writer only if it is
/// asleep, so a burst costs one wake-up.
///
/// Nobody waits for an update published without an ack, so the writer gathers those for
/// `gathering` (a second by default), or until half the capacity is queued, before it
/// takes them. A commit costs about one page written per device it touches, whatever
/// the number of that device's updates in it, so a commit that holds many updates of
/// each device writes each page once for all of them instead of once per update, and
/// the upserts of a device fold into one (`GroupTransaction`). Anything somebody waits
/// for (a completion, a removal, a hold, a stop) ends the gathering at once, so an ack
/// still follows the next commit. It refuses (`queueFull`) once `capacity`
/// updates are outstanding, which counts every update accepted and not yet committed:
/// queued, in the transaction being written, or failed and kept for a retry. That bound
/// is what makes the seq reservation sound (see `SeqState`); a caller that is refused
/// must not hand out the seq (the broker fails the publish before fan-out).
///
/// It also sets the writer's `priority`: in the background for a commit of gathered
/// updates, raised as soon as anything queued is due (including mid-commit).
final class WriteQueue: Sendable {
    /// How the writer is asked to stop.
    enum Stop: Sendable, Equatable {
        /// Commit everything queued, then mark the store cleanly closed.
        case flush
        /// Drop everything queued, as a crash would (tests).
        case abandon
    }

    private enum Admission {
        case queued(wakingWriter: Bool, becameDue: Bool)
        case refused(StoreError.Kind)
    }

    /// What the writer is doing, as the queue sees it.
    private enum Writer {
        /// Committing, or about to look at the queue: no need to wake it.
        case working
        /// Waiting for anything at all.
        case asleep
        /// Holding updates nobody waits for, until `gathering` passes or somebody waits.
        case gathering
    }

    private struct State {
        var operations: [StoreOperation] = []
        var outstanding = 0
        var writer = Writer.working
        /// Something queued is waited for, or half the capacity is queued: take the queue
        /// without gathering.
        var due = false
        var stop: Stop?
    }

    /// The most updates that may be outstanding.
    let capacity: Int
    /// How long updates nobody waits for are held, to be committed together.
    let gathering: Duration
    /// The writer's CPU priority, which follows whether what it commits is due.
    let priority: WriterPriority
    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    private let path: String

    /// A queue for the store at `path` holding at most `capacity` outstanding updates,
    /// gathering unawaited ones for `gathering`, setting the writer's `priority`.
    init(
        capacity: Int, gathering: Duration = .seconds(1), path: String,
        priority: WriterPriority = WriterPriority(adaptive: false)
    ) {
        self.capacity = max(capacity, 1)
        self.gathering = gathering
        self.priority = priority
        self.path = path
    }

    /// Appends `operation`, or refuses it when it would pass the capacity or the store
    /// is closing.
    func submit(_ operation: StoreOperation) throws(StoreError) {
        let count = operation.updateCount
        let capacity = capacity
        let awaited = operation.isAwaited
        let admission = state.withLock { state -> Admission in
            guard state.stop == nil else { return .refused(.closed) }
            guard state.outstanding + count <= capacity else { return .refused(.queueFull) }
            state.operations.append(operation)
            state.outstanding += count
            let due = awaited || state.outstanding * 2 >= capacity
            let becameDue = due && !state.due
            state.due = state.due || due
            let wakes = state.writer == .asleep || (state.writer == .gathering && due)
            if wakes { state.writer = .working }
            return .queued(wakingWriter: wakes, becameDue: becameDue)
        }
        switch admission {
        case .queued(let wakingWriter, let becameDue):
            if becameDue { priority.urgent() }
            if wakingWriter { wake.signal() }
        case .refused(let kind): throw refusal(kind)
        }
    }

    /// Everything queued, and the stop request if any. When nothing is queued and no
    /// stop is asked, waits for work, or at most `timeout` (nil: for as long as it
    /// takes); when only unawaited updates are queued, gathers for `gathering` first.
    /// What it returns is committed in the background only if it is gathered updates
    /// and no retry is pending (`timeout` nil).
    func take(waitingAtMost timeout: Duration?) -> (operations: [StoreOperation], stop: Stop?) {
        var gatheredUntil: DispatchTime?
        while true {
            let now = DispatchTime.now()
            let ripe = gatheredUntil.map { now >= $0 } ?? (gathering == .zero)
            let next = state.withLock { state -> Writer? in
                guard state.operations.isEmpty || state.due || state.stop != nil || ripe else {
                    state.writer = .gathering
                    return .gathering
                }
                guard state.operations.isEmpty, state.stop == nil else { return nil }
                state.writer = .asleep
                return .asleep
            }
            switch next {
            case nil:
                let (taken, urgent) = state.withLock { state in
                    defer {
                        state.operations = []
                        state.due = false
                        state.writer = .working
                    }
                    return ((state.operations, state.stop), state.due || state.stop != nil || timeout != nil)
                }
                if urgent {
                    priority.urgent()
                } else {
                    priority.background(unless: { state.withLock { $0.due || $0.stop != nil } })
                }
                return taken
            case .gathering:
                let deadline = gatheredUntil ?? now + gathering.seconds
                gatheredUntil = deadline
                _ = wake.wait(timeout: deadline)
            case .asleep, .working:
                guard let timeout else {
                    wake.wait()
                    continue
                }
                if wake.wait(timeout: now + timeout.seconds) == .timedOut {
                    let idle = state.withLock { state in
                        defer { state.writer = .working }
                        return state.operations.isEmpty && state.stop == nil
                    }
                    if idle { return ([], nil) }
                }
            }
        }
    }

    /// Records that `count` outstanding updates were committed (or dropped).
    func settled(_ count: Int) {
        state.withLock { $0.outstanding -= count }
    }

    /// Asks the writer to stop; the first request wins. Later submissions are refused.
    func stop(_ stop: Stop) {
        let waiting = state.withLock { state in
            if state.stop == nil { state.stop = stop }
            defer { state.writer = .working }
            return state.writer != .working
        }
        priority.urgent()
        if waiting { wake.signal() }
    }

    /// Updates accepted and not yet committed.
    var outstanding: Int { state.withLock { $0.outstanding } }

    private func refusal(_ kind: StoreError.Kind) -> StoreError {
        switch kind {
        case .queueFull:
            StoreError(
                .queueFull, path: path,
                reason: "\(capacity) updates are waiting to be written; the disk is not keeping up (or is failing)")
        default: StoreError(kind, path: path, reason: "the store is closed")
        }
    }
}
