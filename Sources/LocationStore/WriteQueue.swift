import Dispatch
import Locking
import LocstreamProtocol

/// The bounded queue between the callers and the writer thread.
///
/// `submit` never blocks: it appends under a lock and wakes the writer only if it is
/// asleep, so a burst costs one wake-up. It refuses (`queueFull`) once `capacity`
/// updates are outstanding, which counts every update accepted and not yet committed:
/// queued, in the transaction being written, or failed and kept for a retry. That bound
/// is what makes the seq reservation sound (see `SeqState`); a caller that is refused
/// must not hand out the seq (the broker fails the publish before fan-out).
final class WriteQueue: Sendable {
    /// How the writer is asked to stop.
    enum Stop: Sendable, Equatable {
        /// Commit everything queued, then mark the store cleanly closed.
        case flush
        /// Drop everything queued, as a crash would (tests).
        case abandon
    }

    private enum Admission {
        case queued
        case queuedWakingWriter
        case refused(StoreError.Kind)
    }

    private struct State {
        var operations: [StoreOperation] = []
        var outstanding = 0
        var writerAsleep = false
        var stop: Stop?
    }

    /// The most updates that may be outstanding.
    let capacity: Int
    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    private let path: String

    /// A queue for the store at `path` holding at most `capacity` outstanding updates.
    init(capacity: Int, path: String) {
        self.capacity = max(capacity, 1)
        self.path = path
    }

    /// Appends `operation`, or refuses it when it would pass the capacity or the store
    /// is closing.
    func submit(_ operation: StoreOperation) throws(StoreError) {
        let count = operation.updateCount
        let capacity = capacity
        let admission = state.withLock { state -> Admission in
            guard state.stop == nil else { return .refused(.closed) }
            guard state.outstanding + count <= capacity else { return .refused(.queueFull) }
            state.operations.append(operation)
            state.outstanding += count
            defer { state.writerAsleep = false }
            return state.writerAsleep ? .queuedWakingWriter : .queued
        }
        switch admission {
        case .queued: return
        case .queuedWakingWriter: wake.signal()
        case .refused(let kind): throw refusal(kind)
        }
    }

    /// Everything queued, and the stop request if any; when nothing is queued and no
    /// stop is asked, waits for work, or at most `timeout` (nil: for as long as it takes).
    func take(waitingAtMost timeout: Duration?) -> (operations: [StoreOperation], stop: Stop?) {
        while true {
            let taken = state.withLock { state -> (operations: [StoreOperation], stop: Stop?)? in
                guard state.operations.isEmpty, state.stop == nil else {
                    defer { state.operations = [] }
                    return (state.operations, state.stop)
                }
                state.writerAsleep = true
                return nil
            }
            if let taken { return taken }
            guard let timeout else {
                wake.wait()
                continue
            }
            if wake.wait(timeout: .now() + timeout.seconds) == .timedOut {
                state.withLock { $0.writerAsleep = false }
                return ([], nil)
            }
        }
    }

    /// Records that `count` outstanding updates were committed (or dropped).
    func settled(_ count: Int) {
        state.withLock { $0.outstanding -= count }
    }

    /// Asks the writer to stop; the first request wins. Later submissions are refused.
    func stop(_ stop: Stop) {
        let asleep = state.withLock { state in
            if state.stop == nil { state.stop = stop }
            defer { state.writerAsleep = false }
            return state.writerAsleep
        }
        if asleep { wake.signal() }
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
