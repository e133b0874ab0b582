import Foundation
import Locking
import LocstreamProtocol
import Observability
import Synchronization

/// Copies the WAL back into the database file, on a thread and a connection of its
/// own, every `interval`, so that a commit never pays for a checkpoint (and its
/// `fsync` of the database file): with SQLite's automatic checkpoints, run by whichever
/// commit crosses 1,000 pages, the writer's p99 was 30 ms instead of under 1 ms.
///
/// Checkpoints are `PASSIVE`: they copy what no reader still needs and never block the
/// writer. A checkpoint that fails (a full disk) leaves the WAL as it was; the next one
/// tries again. Once the WAL has been copied entirely, the writer starts it over from
/// its beginning, so it stays about one interval's worth of commits long (and when this
/// thread is starved of CPU, the writer checkpoints past `WALLimit`). Checkpoints
/// once a second instead copy a page rewritten by many commits once, which raised the
/// peak at 60,000 publications/s from 0.58× to 0.69× of `--store memory` in one 5 s
/// comparison, but no better in the next 10 s one, and left bigger bursts of writing
/// beside the fan-out; 100 ms stays until a quieter measurement decides.
final class Checkpointer: Sendable {
    private let connection: Locked<SQLiteConnection?>
    private let interval: Duration
    private let cpus: StoreCPUs?
    private let stopping = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    /// How often it checkpoints unless told otherwise.
    static let defaultInterval = Duration.milliseconds(100)

    /// A checkpointer of the store at `path` (which must exist), every `interval`, on
    /// `cpus` if given.
    init(path: String, interval: Duration = defaultInterval, cpus: StoreCPUs? = nil) throws(StoreError) {
        connection = Locked(try SQLiteConnection(path: path, create: false))
        self.interval = interval
        self.cpus = cpus
    }

    /// Starts the thread.
    func start() {
        NamedThread.start("store-checkpt") { self.run() }
    }

    /// Stops the thread and closes its connection; returns when it has stopped.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
        finished.wait()
    }

    private func run() {
        cpus?.pinCurrentThread()
        BackgroundPriority.lowerCurrentThread(to: BackgroundPriority.checkpointer)
        while !stopping.load(ordering: .acquiring) {
            _ = wake.wait(timeout: .now() + interval.seconds)
            connection.withLock { connection in
                try? connection?.execute("PRAGMA wal_checkpoint(PASSIVE)", doing: "checkpointing")
            }
        }
        connection.withLock { $0 = nil }
        finished.signal()
    }
}
