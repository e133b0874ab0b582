import Foundation
import Glibc

/// The checkpointer runs at a lower CPU priority than the rest of the process, so it
/// never takes a core from the service thread and the fan-out when they compete: it
/// catches up in the gaps. The writer does not: every publish waits in its queue, so a
/// starved writer would turn a busy core into refused publishes (it was so until
/// 2026-12-02: at 60,000 publications/s on one core, tens of thousands a second were
/// refused); it costs a few µs per update and commits about once a second (`WriteQueue`).
enum BackgroundPriority {
    /// The nice value of the checkpointer (the process runs at 0).
    static let niceness: Int32 = 10

    /// Lowers the calling thread alone: on Linux, `setpriority` on a thread id affects
    /// that thread only. Glibc keeps `gettid` from Swift, so the id is read from
    /// `/proc/thread-self` (a link to `PID/task/TID`). A failure leaves the thread at the
    /// process's priority.
    static func lowerCurrentThread() {
        guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
            let thread = link.split(separator: "/").last.flatMap({ id_t($0) })
        else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, niceness)
    }
}
