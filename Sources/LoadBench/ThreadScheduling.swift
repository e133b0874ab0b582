import Foundation

/// How the bench's threads are scheduled.
///
/// On one core, the lws service thread and the Swift tasks reading its connections share
/// a lock per message. Under the default policy a thread that wakes another is often
/// preempted by it while still holding that lock, and the woken one then spins for
/// nothing. `SCHED_BATCH` turns off wake-up preemption for the bench's own threads (it
/// needs no privilege and touches no other process), which on this machine took one bench
/// core from about 400k to about 500k received frames/s.
public enum ThreadScheduling: String, CaseIterable, Sendable {
    case batch
    case normal

    /// Applies the policy to every thread of this process (threads created later inherit
    /// it from their creator); returns how many threads it was applied to.
    @discardableResult
    func apply() -> Int {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return 0 }
        var parameters = sched_param(sched_priority: 0)
        let policy = self == .batch ? Self.schedBatch : SCHED_OTHER
        var applied = 0
        for entry in entries {
            guard let thread = Int32(entry) else { continue }
            if sched_setscheduler(thread, policy, &parameters) == 0 { applied += 1 }
        }
        return applied
    }

    /// `SCHED_BATCH` from <sched.h>; Glibc does not export it to Swift (it is behind
    /// `__USE_GNU`). Its value is fixed by the Linux ABI.
    private static let schedBatch: Int32 = 3
}
