import Foundation
import Glibc
import Locking

/// The store writer's CPU priority, which follows how urgent its work is.
///
/// - **A commit nobody waits for** (updates published without an ack, gathered for a
///   second) runs at `SCHED_IDLE`: it gets a core when nothing else wants it, and the
///   turns the scheduler still gives it are cut short (`BackgroundSlices`). Where the
///   writer shares a core with the service thread, that commit hardly delays the
///   fan-out. At nice 5 throughout, the fan-out's p99 at 20,000 publications/s on one
///   core was 1.4–1.6× that of `--store memory` (store-figures.sh, 2026-12-03).
/// - **Work somebody waits for** raises it back to nice 5 at once: an ack, a removal, a
///   stop, a retry after a failed commit, or half the queue's capacity outstanding. The
///   thread that made the work urgent raises it, even in the middle of a commit. A
///   saturated core would otherwise starve a writer at `SCHED_IDLE`, its queue would
///   fill, and publishes would be refused.
///
/// Leaving `SCHED_IDLE` needs `CAP_SYS_NICE`, or an `RLIMIT_NICE` of at least 15
/// (`LimitNICE=+5` in the systemd unit). A thread that could not come back must never go,
/// so a process without either (`isAdaptive` false) keeps the writer at nice 5.
final class WriterPriority: Sendable {
    private struct State {
        /// The writer thread's kernel id, once it has started.
        var thread: pid_t?
        /// True while the writer runs at `SCHED_IDLE`.
        var background = false
    }

    /// The writer's nice value while it is urgent (the process runs at 0).
    static let niceness: Int32 = 5
    /// `SCHED_IDLE` from `<linux/sched.h>`, which Swift's Glibc does not export.
    private static let idlePolicy: Int32 = 5

    /// True when the writer goes to `SCHED_IDLE` between urgent commits.
    let isAdaptive: Bool
    private let state = Locked(State())

    /// A priority that is adaptive when this process may leave `SCHED_IDLE` (found by
    /// trying it on a thread of its own), or fixed at nice 5 when `adaptive` is false.
    init(adaptive: Bool = WriterPriority.mayReturnFromIdle()) {
        isAdaptive = adaptive
    }

    /// Called on the writer thread as it starts: lowers it to nice 5 and remembers it.
    func adoptCurrentThread() {
        BackgroundPriority.lowerCurrentThread(to: Self.niceness)
        guard let thread = BackgroundPriority.currentThreadID() else { return }
        state.withLock { $0.thread = thread }
    }

    /// Lets the writer run in the background, unless `isUrgent` (checked under this
    /// priority's lock, so that work made urgent meanwhile wins over this call).
    func background(unless isUrgent: () -> Bool) {
        guard isAdaptive else { return }
        state.withLock { state in
            guard !state.background, let thread = state.thread, !isUrgent() else { return }
            state.background = Self.setPolicy(Self.idlePolicy, of: thread)
        }
    }

    /// Raises the writer to nice 5 if it runs in the background. Any thread may call it.
    func urgent() {
        guard isAdaptive else { return }
        state.withLock { state in
            guard state.background, let thread = state.thread else { return }
            state.background = !Self.setPolicy(SCHED_OTHER, of: thread)
        }
    }

    /// True while the writer runs at `SCHED_IDLE`.
    var isInBackground: Bool { state.withLock { $0.background } }

    /// The writer thread's kernel id, once it has started (tests).
    var threadID: pid_t? { state.withLock { $0.thread } }

    /// Whether a thread of this process can go to `SCHED_IDLE` and come back to nice 5:
    /// tried on a short-lived thread, so that a refusal strands nothing.
    static func mayReturnFromIdle() -> Bool {
        let outcome = Locked(false)
        let done = DispatchSemaphore(value: 0)
        let probe = Thread {
            BackgroundPriority.lowerCurrentThread(to: niceness)
            if let thread = BackgroundPriority.currentThreadID() {
                let returned = setPolicy(idlePolicy, of: thread) && setPolicy(SCHED_OTHER, of: thread)
                outcome.withLock { $0 = returned }
            }
            done.signal()
        }
        probe.start()
        done.wait()
        return outcome.withLock { $0 }
    }

    private static func setPolicy(_ policy: Int32, of thread: pid_t) -> Bool {
        var parameters = sched_param(sched_priority: 0)
        return sched_setscheduler(thread, policy, &parameters) == 0
    }
}
