/// The store's tables, the version number they carry (`PRAGMA user_version`) and the
/// upgrade path from every older version.
///
/// A file is recognised as a store by its `PRAGMA application_id`. A brand new file
/// (no id, no tables) is given the schema; a file with another id, or with tables but
/// no id, is someone else's and is refused untouched; a store written by a newer
/// version is refused; an older one is upgraded, one migration per version, in one
/// transaction. The file is never modified before it has been recognised.
struct StoreSchema: Sendable {
    /// `locs` in ASCII: what marks an SQLite file as a locstream store.
    static let applicationID: Int64 = 0x6C6F_6373

    /// The schema of version 1, which every store is created with before its migrations run.
    ///
    /// A device's row holds its last position twice: as the encoded body subscribers get,
    /// and as columns, so a start rebuilds it without parsing JSON (only a position with
    /// `attrs` has its body parsed). History rows need only the body.
    static let creation = """
        CREATE TABLE devices (
          id TEXT PRIMARY KEY NOT NULL,
          seq INTEGER NOT NULL,
          heard INTEGER NOT NULL,
          lat REAL NOT NULL,
          lon REAL NOT NULL,
          ts INTEGER NOT NULL,
          speed REAL,
          heading REAL,
          acc REAL,
          has_attrs INTEGER NOT NULL,
          body BLOB NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE history (
          device TEXT NOT NULL,
          seq INTEGER NOT NULL,
          body BLOB NOT NULL,
          PRIMARY KEY (device, seq)
        ) WITHOUT ROWID;
        CREATE TABLE seq_state (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          epoch_floor INTEGER NOT NULL,
          removed_floor INTEGER NOT NULL,
          high_seq INTEGER NOT NULL,
          open_capacity INTEGER NOT NULL
        );
        INSERT INTO seq_state VALUES (1, 0, 0, 0, 0);
        """

    /// The current version: 1 plus the number of migrations.
    var version: Int64 { Int64(migrations.count) + 1 }
    /// `migrations[i]` upgrades version `i + 1` to `i + 2`.
    let migrations: [String]

    /// Version 2 keeps history in chunks: one row per device per commit, holding that
    /// commit's updates of the device (its newest `historySize` at most), so a commit
    /// writes a row per device it touches rather than one per update. `bodies` is the
    /// encoded updates, oldest first, each followed by a newline (an encoded location
    /// never holds one: JSON escapes control characters); `last_seq` is the newest seq
    /// in the chunk and `count` how many it holds.
    static let chunkedHistory = """
        ALTER TABLE history RENAME TO history_v1;
        CREATE TABLE history (
          device TEXT NOT NULL,
          last_seq INTEGER NOT NULL,
          count INTEGER NOT NULL,
          bodies BLOB NOT NULL,
          PRIMARY KEY (device, last_seq)
        ) WITHOUT ROWID;
        INSERT INTO history SELECT device, seq, 1, body || x'0a' FROM history_v1;
        DROP TABLE history_v1;
        """

    /// Version 3 appends history: chunks go into a rowid table in the order they are
    /// written, found through an index on `(device, last_seq, count)` (which also answers
    /// the trim without reading a chunk). In version 2's table, sorted by device, a chunk
    /// over about 1,000 bytes (10 updates) spilled into an overflow page of its own, three
    /// quarters empty, so a commit wrote two pages per device. A rowid table keeps a chunk
    /// of up to about 4,000 bytes in its page, and a commit's chunks fill consecutive pages:
    /// at 20,000 publications/s over 2,000 devices the writer's CPU per update fell from
    /// 4.4–5.2 µs to 1.8–2.1 (`store-bench writer-cost DIR 2000 20000 10`, ABBA).
    /// Nothing makes `(device, last_seq)` unique but the writer: a seq is written in one
    /// committed transaction only, since a failed one is rolled back before it is retried.
    static let appendedHistory = """
        ALTER TABLE history RENAME TO history_v2;
        CREATE TABLE history (
          device TEXT NOT NULL,
          last_seq INTEGER NOT NULL,
          count INTEGER NOT NULL,
          bodies BLOB NOT NULL
        );
        INSERT INTO history (device, last_seq, count, bodies)
          SELECT device, last_seq, count, bodies FROM history_v2 ORDER BY last_seq;
        DROP TABLE history_v2;
        CREATE INDEX history_by_device ON history (device, last_seq, count);
        """

    /// The schema this build writes.
    static let current = StoreSchema(migrations: [chunkedHistory, appendedHistory])

    /// Recognises the database behind `connection`, refuses it if it is not a store this
    /// version can use, switches it to WAL with `sync`, and creates or upgrades the schema
    /// (a store already at this version is not written to).
    func prepare(_ connection: SQLiteConnection, sync: SyncMode) throws(StoreError) {
        let path = connection.path
        let application = try connection.integer("PRAGMA application_id")
        let found = try connection.integer("PRAGMA user_version")
        let objects = try connection.integer("SELECT count(*) FROM sqlite_schema")
        let fresh = application == 0 && found == 0 && objects == 0
        if !fresh {
            guard application == Self.applicationID, found >= 1 else {
                throw StoreError(
                    .foreignDatabase, path: path,
                    reason: "an SQLite database that is not a locstream store (application_id \(application), "
                        + "user_version \(found), \(objects) schema objects); refusing to touch it")
            }
            guard found <= version else {
                throw StoreError(
                    .newerSchema, path: path,
                    reason: "written by a newer locstream (schema version \(found); this one reads up to \(version))")
            }
        }
        try switchToWAL(connection, sync: sync)
        guard fresh || found < version else { return }
        try connection.execute("BEGIN IMMEDIATE", doing: "starting the schema transaction")
        do {
            if fresh {
                try connection.execute(Self.creation, doing: "creating the schema")
                try connection.execute("PRAGMA application_id = \(Self.applicationID)", doing: "marking the store")
            }
            for step in Int(fresh ? 1 : found)..<Int(version) {
                try connection.execute(migrations[step - 1], doing: "upgrading the schema to version \(step + 1)")
            }
            try connection.execute("PRAGMA user_version = \(version)", doing: "recording the schema version")
            try connection.execute("COMMIT", doing: "committing the schema")
        } catch {
            connection.rollback()
            throw error
        }
    }

    private func switchToWAL(_ connection: SQLiteConnection, sync: SyncMode) throws(StoreError) {
        let statement = try connection.prepare("PRAGMA journal_mode = WAL")
        let mode = try statement.step() ? statement.text(0) : ""
        statement.reset()
        guard mode.lowercased() == "wal" else {
            throw StoreError(
                .notWritable, path: connection.path, reason: "cannot switch to WAL mode (journal mode \(mode))")
        }
        try connection.execute("PRAGMA synchronous = \(sync.pragma)", doing: "setting synchronous")
    }
}
