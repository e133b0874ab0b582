import LocationStore

/// Where the embedded broker keeps what outlives the process: `--store`, `--data-dir`,
/// `--sync` and `--store-cpus`. The Redis broker ignores them; Redis is its store.
struct StoreSettings: Sendable {
    /// What keeps the devices.
    enum Kind: String, Sendable, CaseIterable {
        /// SQLite under the data directory: seqs, last positions and history survive a restart.
        case sqlite
        /// Memory alone: everything is forgotten at exit (tests, throwaway runs).
        case memory
    }

    var kind = Kind.sqlite
    /// The data directory of `--store sqlite`, created if missing.
    var directory = "./locstream-data"
    /// How hard a commit insists that it reached the disk.
    var sync = SyncMode.normal
    /// The CPUs the store's writer and checkpointer run on; nil: wherever the process may.
    var cpus: StoreCPUs?
}
