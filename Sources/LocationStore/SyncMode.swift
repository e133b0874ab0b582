/// How hard a commit insists that its data reached the disk (SQLite's `synchronous`).
public enum SyncMode: String, Sendable, Equatable, CaseIterable {
    /// `synchronous=NORMAL` in WAL mode: a commit survives a crash of the process, not
    /// necessarily a power loss (the last commits may roll back).
    case normal
    /// `synchronous=FULL`: every commit is on the disk before it is reported, so it also
    /// survives a power loss; each commit costs an `fsync`.
    case full

    /// The value for `PRAGMA synchronous`.
    var pragma: String {
        switch self {
        case .normal: "NORMAL"
        case .full: "FULL"
        }
    }
}
