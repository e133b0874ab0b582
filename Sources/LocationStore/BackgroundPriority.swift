import Foundation
import Glibc

/// The store's threads run at a lower CPU priority than the rest of the process, so that
/// when they compete for a core the service thread and the fan-out go first.
///
/// - The checkpointer (nice 10) catches up in the gaps; when it is starved, the writer
///   checkpoints past `WALLimit`.
/// - The writer runs at nice 5 or in the background, as its work demands
///   (`WriterPriority`). It must not starve: every publish waits in its queue, and at
///   nice 10 a saturated core turned into tens of thousands of refused publishes a second
///   at 60,000/s (2026-12-02).
enum BackgroundPriority {
    /// The nice value of the checkpointer (the process runs at 0).
    static let checkpointer: Int32 = 10

    /// Lowers the calling thread alone: on Linux, `setpriority` on a thread id affects
    /// that thread only. A failure leaves the thread at the process's priority.
    static func lowerCurrentThread(to niceness: Int32) {
        guard let thread = currentThreadID() else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(thread), niceness)
    }

    /// The calling thread's kernel id. Glibc keeps `gettid` from Swift, so it is read
    /// from `/proc/thread-self` (a link to `PID/task/TID`).
    static func currentThreadID() -> pid_t? {
        guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self") else {
            return nil
        }
        return link.split(separator: "/").last.flatMap { pid_t($0) }
    }
}
