import Dispatch
import Foundation
import Locking
import LocstreamProtocol
import Observability

/// The durable embedded store of a single node: per device its seq, its last position
/// (the encoded body, as subscribers get it) and its `historySize` newest updates, in
/// SQLite (WAL mode) under a data directory.
///
/// The node loads everything but the history at start (`load`), keeps it in memory, and
/// hands every update to `enqueue` as it publishes: that never blocks and never waits
/// for the disk. One writer thread commits what is queued in groups (`StoreWriter`); a
/// completion tells the publisher when its update is durable, so the ack can follow the
/// commit. Seqs never go back or repeat across a crash or a lost directory (`SeqState`).
///
/// The caller must hand out a seq only with an accepted `enqueue` of the update that
/// carries it, in seq order per device (inside its own critical section), and must
/// refuse the publication when `enqueue` throws (`queueFull`: the disk is behind or
/// failing). Call `close` to shut down cleanly; a store dropped without it closes itself.
public final class LocationStore: Sendable {
    /// The default bound on updates waiting to be written.
    public static let defaultQueueCapacity = 65_536

    /// The data directory.
    public let directory: String
    /// The SQLite file in it.
    public let databasePath: String
    /// Updates kept per device.
    public let historySize: Int
    /// True when the previous process did not close the store cleanly.
    public let recoveredFromCrash: Bool
    private let dataDirectory: DataDirectory
    private let queue: WriteQueue
    private let writer: StoreWriter
    private let reader: StoreReader
    private let checkpointer: Checkpointer
    private let metrics: StoreMetrics

    /// Opens the store in `directory` (created if missing), syncing commits as `sync`
    /// says, keeping `historySize` updates per device, accepting at most `queueCapacity`
    /// updates not yet committed, with its metrics in `registry`, telling `logger` of
    /// updates a close could not write, its writer and checkpointer on `cpus` if given.
    ///
    /// Throws, naming the file or directory and why, for a directory that cannot be
    /// created or written or is in use, a file that is not SQLite or is damaged, an SQLite
    /// database that is not a store, a store of a newer schema, or `cpus` its threads may
    /// not run on; a file it cannot read is never replaced by an empty store.
    public static func open(
        directory: String, sync: SyncMode = .normal, historySize: Int, queueCapacity: Int = defaultQueueCapacity,
        registry: MetricsRegistry? = nil, logger: Logger? = nil, cpus: StoreCPUs? = nil
    ) throws(StoreError) -> LocationStore {
        try LocationStore(
            directory: directory, sync: sync, historySize: historySize, queueCapacity: queueCapacity,
            registry: registry, logger: logger, cpus: cpus, schema: .current,
            wallClockMicros: UInt64(Date().timeIntervalSince1970 * 1_000_000))
    }

    /// `open`, with the schema to write and the wall clock given, and the WAL's limit and
    /// the checkpointer's interval if not the defaults (tests).
    init(
        directory: String, sync: SyncMode, historySize: Int, queueCapacity: Int, registry: MetricsRegistry?,
        logger: Logger? = nil, cpus: StoreCPUs? = nil, schema: StoreSchema, wallClockMicros: UInt64,
        walLimitBytes: Int = WALLimit.defaultBytes, checkpointInterval: Duration = Checkpointer.defaultInterval
    ) throws(StoreError) {
        if let cpus, let reason = cpus.refusal() {
            throw StoreError(
                .unusableCPUs, path: directory, reason: "its threads cannot run on CPUs \(cpus): \(reason)")
        }
        let dataDirectory = try DataDirectory(directory)
        let queue = WriteQueue(capacity: queueCapacity, path: dataDirectory.databasePath, priority: WriterPriority())
        let transaction: GroupTransaction
        do {
            let connection = try SQLiteConnection(path: dataDirectory.databasePath, create: true)
            try schema.prepare(connection, sync: sync)
            let stored = try SeqState.read(from: connection)
            let started = stored.started(capacity: queue.capacity, nowMicros: wallClockMicros)
            try started.writeDurably(to: connection, sync: sync)
            recoveredFromCrash = stored.needsRecovery
            transaction = try GroupTransaction(
                connection: connection, historySize: historySize, walLimitBytes: walLimitBytes)
            reader = try StoreReader(path: dataDirectory.databasePath, historySize: historySize)
            checkpointer = try Checkpointer(path: dataDirectory.databasePath, interval: checkpointInterval, cpus: cpus)
        } catch {
            dataDirectory.release()
            throw error
        }
        self.dataDirectory = dataDirectory
        self.queue = queue
        self.directory = directory
        self.historySize = historySize
        databasePath = dataDirectory.databasePath
        let metrics = StoreMetrics(
            registry: registry, size: { dataDirectory.sizeInBytes }, queued: { queue.outstanding })
        self.metrics = metrics
        writer = StoreWriter(
            transaction: transaction, queue: queue, metrics: metrics, sync: sync,
            walLimit: WALLimit(databasePath: dataDirectory.databasePath, bytes: walLimitBytes), cpus: cpus,
            logger: logger)
        writer.start()
        checkpointer.start()
        if !queue.priority.isAdaptive {
            logger?.info(
                "store writer stays at nice 5",
                ["reason": "leaving SCHED_IDLE needs CAP_SYS_NICE or an RLIMIT_NICE of 15 (systemd: LimitNICE=+5)"])
        }
    }

    deinit {
        close()
    }

    /// Every device's seq, last position and last-heard time, and the seq new devices
    /// start above: what the node keeps in memory. Reads committed data only; call it
    /// once, at start, before handing out seqs.
    public func load() throws(StoreError) -> StoreSnapshot {
        try reader.load(recoveredFromCrash: recoveredFromCrash)
    }

    /// Queues `updates` (one publication, seqs assigned) heard at `heardAt`, to be
    /// committed by the writer thread; `completion` is called on that thread once they
    /// are committed or their transaction failed. Never blocks.
    ///
    /// Throws `queueFull` when `queueCapacity` updates are already waiting (the disk is
    /// behind or failing: the caller must refuse the publication and not hand out its
    /// seqs), and `closed` after `close`.
    public func enqueue(
        _ updates: [EncodedLocation], heardAt: Date = Date(), completion: CommitCompletion? = nil
    ) throws(StoreError) {
        let heard = Int64(heardAt.timeIntervalSince1970 * 1000)
        try queue.submit(.write(StoreWrite(updates: updates, heardMillis: heard, completion: completion)))
    }

    /// The stored updates of `device` with a seq above `seq`, oldest first (at most
    /// `historySize`; committed ones only). Reads the disk on the calling thread.
    public func history(_ device: String, after seq: UInt64) throws(StoreError) -> [EncodedLocation] {
        try reader.history(device, after: seq)
    }

    /// Removes the devices not heard from since `cutoff`, with their history, in the
    /// writer's order (after every write queued before); their highest seq becomes the
    /// floor a returning device starts above. Returns how many were removed.
    public func removeSilent(olderThan cutoff: Date) async throws(StoreError) -> Int {
        let millis = Int64(cutoff.timeIntervalSince1970 * 1000)
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Int, StoreError>, Never>) in
            do throws(StoreError) {
                try queue.submit(.removeSilent(cutoffMillis: millis) { continuation.resume(returning: $0) })
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        return try result.get()
    }

    /// Returns once everything queued before the call is committed.
    public func flush() async throws(StoreError) {
        let commit = OneShot<Result<Void, StoreError>>()
        try enqueue([], completion: commit.fulfil)
        try await commit.value()?.get()
    }

    /// False while writes fail (disk full, I/O errors), until a commit succeeds again:
    /// what `/readyz` reports.
    public var isHealthy: Bool { writer.isHealthy }

    /// Updates accepted and not yet committed.
    public var queuedUpdates: Int { queue.outstanding }

    /// Counts since the store was opened.
    public var statistics: StoreStatistics {
        StoreStatistics(
            commits: metrics.commits.count, rowsWritten: metrics.rowsWritten.count, errors: metrics.errors.count)
    }

    /// Commits everything queued, records the clean close, and releases the directory;
    /// blocks until done (except when called from a completion, on the writer thread).
    /// Later enqueues throw `closed`. Calling it again does nothing.
    public func close() {
        shut(.flush)
    }

    /// Stops as a crash would: what is queued is dropped (its completions are told
    /// `closed`) and the close is not recorded. `hold`, if the writer is held, is released.
    func abandon(releasing hold: DispatchSemaphore? = nil) {
        shut(.abandon, releasing: hold)
    }

    /// Makes the writer stop, once it has written what is queued now, until the
    /// semaphore returned is signalled; returns when the writer has stopped there (tests
    /// keep writes queued with it).
    func holdWriter() throws(StoreError) -> DispatchSemaphore {
        let reached = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        try queue.submit(.hold(reached: reached, release: release))
        reached.wait()
        return release
    }

    private func shut(_ stop: WriteQueue.Stop, releasing hold: DispatchSemaphore? = nil) {
        queue.stop(stop)
        hold?.signal()
        checkpointer.stop()
        // Closed from a completion (or its last reference dropped there): the writer
        // finishes once the completion returns, and the directory is released when the
        // store is deinitialised.
        guard !writer.isCurrentThread else { return }
        writer.waitUntilFinished()
        reader.close()
        dataDirectory.release()
    }
}
