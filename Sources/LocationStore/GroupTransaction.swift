import LocstreamProtocol

/// The writer's prepared statements, and what one group commit does with them: every
/// queued operation, in order, in a single transaction.
///
/// Updates are grouped by device (`DeviceUpdates`). Per device and transaction, one
/// history chunk holds its updates (the newest `historySize` of them), and its row
/// (seq, when heard, the last position) is upserted once, never to a lower seq, from the
/// newest; a removal in between writes what came before it first, so the order of
/// operations holds. A device whose seq reaches a multiple of `historySize` has its
/// older chunks trimmed, keeping those that hold its `historySize` newest updates, so
/// trimming costs one index walk per `historySize` updates, not one per commit: a
/// device keeps between `historySize` and about three times that, and reads take the
/// newest `historySize`. The highest seq written and the highest removed one raise the
/// `seq_state` row in the same transaction.
final class GroupTransaction {
    /// The writer's connection.
    let connection: SQLiteConnection
    private let historySize: Int
    private let upsertDevice: SQLiteStatement
    private let insertHistory: SQLiteStatement
    private let trimHistory: SQLiteStatement
    private let raiseState: SQLiteStatement
    private let silentSummary: SQLiteStatement
    private let deleteSilentHistory: SQLiteStatement
    private let deleteSilentDevices: SQLiteStatement
    /// How many devices the last commit wrote: the next one sizes its grouping for as
    /// many, rather than growing it (and rehashing) from empty.
    private var devicesInLastCommit = 0

    /// Prepares the statements on `connection`, keeping `historySize` updates per device;
    /// a WAL started over is truncated to `walLimitBytes` (`WALLimit`).
    init(connection: SQLiteConnection, historySize: Int, walLimitBytes: Int) throws(StoreError) {
        self.connection = connection
        self.historySize = historySize
        // The checkpointer thread moves the WAL into the database; a commit never does.
        try connection.execute("PRAGMA wal_autocheckpoint = 0", doing: "leaving checkpoints to the checkpointer")
        try connection.execute("PRAGMA journal_size_limit = \(walLimitBytes)", doing: "bounding the WAL file")
        // 32 MiB of page cache (SQLite's default is 2): the pages every commit touches stay
        // in memory; at 60,000 publications/s it took the peak from 0.42x to 0.58x of memory
        // (deploy/loadtest/store-figures.sh, peak-60000).
        try connection.execute("PRAGMA cache_size = -32768", doing: "sizing the page cache")
        upsertDevice = try connection.prepare(
            """
            INSERT INTO devices (id, seq, heard, lat, lon, ts, speed, heading, acc, has_attrs, body)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, heard = excluded.heard, lat = excluded.lat,
              lon = excluded.lon, ts = excluded.ts, speed = excluded.speed, heading = excluded.heading,
              acc = excluded.acc, has_attrs = excluded.has_attrs, body = excluded.body
            WHERE excluded.seq > devices.seq
            """)
        insertHistory = try connection.prepare(
            "INSERT INTO history (device, last_seq, count, bodies) VALUES (?1, ?2, ?3, ?4)")
        trimHistory = try connection.prepare(
            """
            DELETE FROM history WHERE device = ?1 AND last_seq < (
              SELECT min(last_seq) FROM (
                SELECT last_seq, sum(count) OVER (ORDER BY last_seq DESC) - count AS newer
                FROM history WHERE device = ?1)
              WHERE newer < ?2)
            """)
        raiseState = try connection.prepare(
            "UPDATE seq_state SET high_seq = max(high_seq, ?1), removed_floor = max(removed_floor, ?2) WHERE id = 1")
        silentSummary = try connection.prepare("SELECT count(*), coalesce(max(seq), 0) FROM devices WHERE heard < ?1")
        deleteSilentHistory = try connection.prepare(
            "DELETE FROM history WHERE device IN (SELECT id FROM devices WHERE heard < ?1)")
        deleteSilentDevices = try connection.prepare("DELETE FROM devices WHERE heard < ?1")
    }

    /// Applies `operations` in one transaction, all or nothing, offering the core between
    /// `slices`. Returns, for each operation, the number of devices it removed (0 for writes).
    func commit(_ operations: [StoreOperation], slices: inout BackgroundSlices) throws(StoreError) -> [Int] {
        try connection.execute("BEGIN IMMEDIATE", doing: "starting a transaction")
        do {
            var highSeq: UInt64 = 0
            var removedSeq: UInt64 = 0
            var removed: [Int] = []
            var devices: [String: DeviceUpdates] = [:]
            devices.reserveCapacity(devicesInLastCommit)
            for operation in operations {
                slices.yieldIfDue()
                switch operation {
                case .write(let write):
                    for update in write.updates {
                        devices[update.location.device, default: DeviceUpdates()]
                            .add(update, heardMillis: write.heardMillis, historySize: historySize)
                        highSeq = max(highSeq, update.location.seq)
                    }
                    removed.append(0)
                case .removeSilent(let cutoff, _):
                    try store(devices, slices: &slices)
                    devices = [:]
                    let (count, seq) = try removeSilent(before: cutoff)
                    removedSeq = max(removedSeq, seq)
                    removed.append(count)
                case .hold: removed.append(0)
                }
            }
            try store(devices, slices: &slices)
            devicesInLastCommit = devices.count
            raiseState.bind(1, seq: highSeq)
            raiseState.bind(2, seq: removedSeq)
            try raiseState.run()
            try connection.execute("COMMIT", doing: "committing")
            return removed
        } catch {
            connection.rollback()
            throw error
        }
    }

    /// Writes each device's chunk and row in device order, so that consecutive rows and
    /// history index entries land on the same pages (the chunks are appended, whatever
    /// the order); trims where due.
    private func store(_ devices: [String: DeviceUpdates], slices: inout BackgroundSlices) throws(StoreError) {
        for (device, updates) in devices.sorted(by: { $0.key < $1.key }) {
            slices.yieldIfDue()
            guard let newest = updates.newest else { continue }
            if historySize > 0 {
                let chunk = updates.chunk(keeping: historySize)
                insertHistory.bind(1, device)
                insertHistory.bind(2, seq: chunk.lastSeq)
                insertHistory.bind(3, Int64(chunk.count))
                insertHistory.bind(4, chunk.bodies)
                try insertHistory.run()
            }
            let location = newest.location
            upsertDevice.bind(1, device)
            upsertDevice.bind(2, seq: location.seq)
            upsertDevice.bind(3, updates.heardMillis)
            upsertDevice.bind(4, location.lat)
            upsertDevice.bind(5, location.lon)
            upsertDevice.bind(6, location.ts)
            upsertDevice.bind(7, location.speed)
            upsertDevice.bind(8, location.heading)
            upsertDevice.bind(9, location.acc)
            upsertDevice.bind(10, Int64(location.attrs == nil ? 0 : 1))
            upsertDevice.bind(11, newest.body)
            try upsertDevice.run()
            if updates.reachedTrim {
                trimHistory.bind(1, device)
                trimHistory.bind(2, Int64(historySize))
                try trimHistory.run()
            }
        }
    }

    private func removeSilent(before cutoff: Int64) throws(StoreError) -> (count: Int, maxSeq: UInt64) {
        silentSummary.bind(1, cutoff)
        guard try silentSummary.step() else { return (0, 0) }
        let count = Int(silentSummary.int64(0))
        let maxSeq = UInt64(clamping: silentSummary.int64(1))
        silentSummary.reset()
        guard count > 0 else { return (0, 0) }
        deleteSilentHistory.bind(1, cutoff)
        try deleteSilentHistory.run()
        deleteSilentDevices.bind(1, cutoff)
        try deleteSilentDevices.run()
        return (count, maxSeq)
    }
}
