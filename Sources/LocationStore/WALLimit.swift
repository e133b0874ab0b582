import Glibc

/// How long the write-ahead log may grow before the writer checkpoints it itself.
///
/// The checkpointer (nice 10) copies the WAL back into the database every 100 ms, and the
/// next commit then starts the WAL over from its beginning. On a saturated core it gets
/// almost no CPU: on 2026-12-03, with the server pinned to one core at 20,000
/// publications/s, the WAL grew to 206 MB in 25 s, and every commit got slower as the file
/// grew (new pages to allocate and zero), so the write queue filled and publishes were
/// refused. Past `bytes`, the writer runs a `PASSIVE` checkpoint itself after its commit.
/// It has the higher priority, and nothing writes while it copies, so the whole WAL is
/// copied and the next commit starts it over; `journal_size_limit` (`bytes`, set by
/// `GroupTransaction`) then truncates the file. Disk use stays bounded whatever the load.
struct WALLimit: Sendable {
    /// 64 MiB: about five seconds of 20,000 publications/s.
    static let defaultBytes = 64 << 20

    /// The WAL's path (the database's, with `-wal`).
    let path: String
    let bytes: Int

    /// The limit for the database at `databasePath`.
    init(databasePath: String, bytes: Int = defaultBytes) {
        path = databasePath + "-wal"
        self.bytes = bytes
    }

    /// True when the WAL file is longer than the limit.
    var isExceeded: Bool {
        var status = stat()
        return stat(path, &status) == 0 && Int(status.st_size) > bytes
    }
}
