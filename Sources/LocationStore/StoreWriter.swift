import Foundation
import Locking
import LocstreamProtocol
import Observability
import Synchronization

/// The store's one writer: a thread of its own (not the Swift cooperative pool, which
/// must never block on a disk) that commits the queue in groups.
///
/// Each turn takes everything queued and writes it in one transaction, so every write
/// that arrives while a commit runs goes into the next one. Completions are called on
/// this thread once their transaction committed, or failed.
///
/// A failed transaction (disk full, I/O error) is rolled back, so nothing already
/// stored is touched; its completions are told the error, `isHealthy` turns false, and
/// its updates are kept and written again (with whatever has arrived since) after a
/// growing pause, 50 ms to 2 s, until a commit succeeds. Kept updates still count
/// against the queue's capacity, so a disk that stays full ends in refused enqueues
/// rather than in seqs handed out and never stored. Asked to stop while commits keep
/// failing, it tries three more times, then logs what it could not write and stops.
final class StoreWriter: Sendable {
    private let transaction: Locked<GroupTransaction?>
    private let queue: WriteQueue
    private let metrics: StoreMetrics
    private let sync: SyncMode
    private let logger: Logger?
    private let walLimit: WALLimit
    private let cpus: StoreCPUs?
    private let healthy = Atomic<Bool>(true)
    /// The writer thread's `pthread_t` once it runs.
    private let threadID = Atomic<UInt>(0)
    private let finished = DispatchSemaphore(value: 0)

    /// A writer committing `queue` through `transaction`.
    /// `logger`, if any, hears of updates a stop could not write.
    /// It checkpoints the WAL itself once it is longer than `walLimit`, and runs on `cpus` if given.
    init(
        transaction: sending GroupTransaction, queue: WriteQueue, metrics: StoreMetrics, sync: SyncMode,
        walLimit: WALLimit, cpus: StoreCPUs?, logger: Logger?
    ) {
        self.walLimit = walLimit
        self.cpus = cpus
        self.transaction = Locked(transaction)
        self.queue = queue
        self.metrics = metrics
        self.sync = sync
        self.logger = logger
    }

    /// Starts the thread.
    func start() {
        NamedThread.start("store-writer") { self.run() }
    }

    /// False after a failed transaction, until one commits.
    var isHealthy: Bool { healthy.load(ordering: .relaxed) }

    /// True on the writer thread itself (in a completion), where waiting for it would never end.
    var isCurrentThread: Bool { threadID.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Waits until the thread has stopped (after `WriteQueue.stop`).
    func waitUntilFinished() {
        finished.wait()
        finished.signal()
    }

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .relaxed)
        cpus?.pinCurrentThread()
        queue.priority.adoptCurrentThread()
        var carried: [StoreWrite] = []
        var pause = Duration.milliseconds(50)
        var attemptsWhileStopping = 0
        var lastError: StoreError?
        while true {
            let (operations, stop) = queue.take(waitingAtMost: carried.isEmpty ? nil : pause)
            if stop == .abandon {
                let closed = StoreError(.closed, path: "", reason: "the store was abandoned")
                for operation in operations { operation.fail(closed) }
                break
            }
            if stop == .flush, !carried.isEmpty, operations.isEmpty { Thread.sleep(forTimeInterval: pause.seconds) }
            var batch = carried.map(StoreOperation.write)
            carried = []
            for operation in operations {
                guard case .hold(let reached, let release) = operation else {
                    batch.append(operation)
                    continue
                }
                carried += commit(batch, failure: &lastError)
                batch = []
                reached.signal()
                release.wait()
            }
            if !batch.isEmpty { carried += commit(batch, failure: &lastError) }
            pause = carried.isEmpty ? .milliseconds(50) : min(pause * 2, .seconds(2))
            if stop == .flush {
                if carried.isEmpty {
                    markClosed()
                    break
                }
                attemptsWhileStopping += 1
                if attemptsWhileStopping >= 3 {
                    logger?.error(
                        "store stopped with updates it could not write",
                        [
                            "updates": carried.reduce(0) { $0 + $1.updates.count },
                            "reason": lastError.map { "\($0)" } ?? "unknown",
                        ])
                    break
                }
            }
        }
        transaction.withLock { $0 = nil }
        finished.signal()
    }

    /// Commits `batch`; returns its writes to try again if it failed, and the error in `failure`.
    private func commit(_ batch: [StoreOperation], failure: inout StoreError?) -> [StoreWrite] {
        let started = ContinuousClock.now
        let priority = queue.priority
        let outcome = transaction.withLock { transaction -> Result<[Int], StoreError> in
            guard let transaction else { return .failure(StoreError(.closed, path: "", reason: "the store is closed")) }
            var slices = BackgroundSlices(yieldingWhile: { priority.isInBackground })
            do throws(StoreError) {
                return .success(try transaction.commit(batch, slices: &slices))
            } catch {
                return .failure(error)
            }
        }
        let updates = batch.reduce(0) { $0 + $1.updateCount }
        switch outcome {
        case .success(let removed):
            metrics.commitSeconds.observe((ContinuousClock.now - started).seconds)
            metrics.commits.increment()
            metrics.rowsWritten.increment(by: updates)
            healthy.store(true, ordering: .relaxed)
            queue.settled(updates)
            checkpointIfLong()
            for (operation, count) in zip(batch, removed) {
                switch operation {
                case .write(let write): write.completion?(.success(()))
                case .removeSilent(_, let completion): completion(.success(count))
                case .hold: break
                }
            }
            return []
        case .failure(let error):
            failure = error
            metrics.errors.increment()
            healthy.store(false, ordering: .relaxed)
            for operation in batch { operation.fail(error) }
            return batch.compactMap { operation in
                guard case .write(var write) = operation else { return nil }
                write.completion = nil
                return write
            }
        }
    }

    /// Checkpoints the WAL when the checkpointer has fallen behind (see `WALLimit`). A
    /// failure (a full disk) leaves it as it was, for the next commit or the checkpointer.
    private func checkpointIfLong() {
        guard walLimit.isExceeded else { return }
        transaction.withLock { transaction in
            try? transaction?.connection.execute("PRAGMA wal_checkpoint(PASSIVE)", doing: "checkpointing a long WAL")
        }
    }

    /// Records the clean close: the next start needs no recovery.
    private func markClosed() {
        let sync = sync
        transaction.withLock { transaction in
            guard let connection = transaction?.connection else { return }
            do throws(StoreError) {
                var state = try SeqState.read(from: connection)
                state.openCapacity = 0
                try state.writeDurably(to: connection, sync: sync)
            } catch {
                metrics.errors.increment()
            }
        }
    }
}
