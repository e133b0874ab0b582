extension SeqState {
    /// The state stored in the database behind `connection`.
    static func read(from connection: SQLiteConnection) throws(StoreError) -> SeqState {
        let statement = try connection.prepare(
            "SELECT epoch_floor, removed_floor, high_seq, open_capacity FROM seq_state WHERE id = 1")
        guard try statement.step() else {
            throw StoreError(.corrupt, path: connection.path, reason: "the seq_state row is missing")
        }
        defer { statement.reset() }
        return SeqState(
            epochFloor: UInt64(clamping: statement.int64(0)), removedFloor: UInt64(clamping: statement.int64(1)),
            highSeq: UInt64(clamping: statement.int64(2)), openCapacity: UInt64(clamping: statement.int64(3)))
    }

    /// Stores this state in its own transaction, synced to the disk (`synchronous=FULL`
    /// for this commit whatever `sync` is, restored afterwards): the seq floors and the
    /// open marker must never be lost, even to a power cut.
    func writeDurably(to connection: SQLiteConnection, sync: SyncMode) throws(StoreError) {
        let update = try connection.prepare(
            "UPDATE seq_state SET epoch_floor = ?1, removed_floor = ?2, high_seq = ?3, open_capacity = ?4 WHERE id = 1")
        update.bind(1, seq: epochFloor)
        update.bind(2, seq: removedFloor)
        update.bind(3, seq: highSeq)
        update.bind(4, seq: openCapacity)
        try connection.execute("PRAGMA synchronous = FULL", doing: "setting synchronous")
        defer { try? connection.execute("PRAGMA synchronous = \(sync.pragma)", doing: "setting synchronous") }
        try connection.execute("BEGIN IMMEDIATE", doing: "starting the seq state transaction")
        do {
            try update.run()
            try connection.execute("COMMIT", doing: "committing the seq state")
        } catch {
            connection.rollback()
            throw error
        }
    }
}
