import Foundation
import Glibc

/// The store's threads run at a lower CPU priority than the rest of the process, so the
/// writer and the checkpointer never take a core from the service thread and the fan-out
/// when the two compete: they catch up in the gaps, in larger groups. Under a sustained
/// overload the queue fills and publishes are refused, rather than deliveries delayed.
enum BackgroundPriority {
    /// The nice value of the store's threads (the process runs at 0).
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
