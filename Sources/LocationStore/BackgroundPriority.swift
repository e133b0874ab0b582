import Foundation
import Glibc

/// The store's threads run at a lower CPU priority than the rest of the process, so that
/// when they compete for a core the service thread and the fan-out go first.
///
/// - The checkpointer (nice 10) catches up in the gaps.
/// - The writer (nice 5) commits about once a second, a burst of a few µs per update
///   (`WriteQueue`). At the process's priority that burst took half the core from the
///   service thread for tens of milliseconds, the fan-out's p99 at 20,000 publications/s
///   3.5× that of `--store memory` (store-figures.sh, 2026-12-03). It must not starve
///   either: every publish waits in its queue, and at nice 10 a saturated core turned into
///   tens of thousands of refused publishes a second at 60,000/s (2026-12-02). Nice 5
///   still gets about a quarter of a contended core, several times what it needs.
enum BackgroundPriority {
    /// The nice value of the checkpointer (the process runs at 0).
    static let checkpointer: Int32 = 10
    /// The nice value of the writer.
    static let writer: Int32 = 5

    /// Lowers the calling thread alone: on Linux, `setpriority` on a thread id affects
    /// that thread only. Glibc keeps `gettid` from Swift, so the id is read from
    /// `/proc/thread-self` (a link to `PID/task/TID`). A failure leaves the thread at the
    /// process's priority.
    static func lowerCurrentThread(to niceness: Int32) {
        guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
            let thread = link.split(separator: "/").last.flatMap({ id_t($0) })
        else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, niceness)
    }
}
