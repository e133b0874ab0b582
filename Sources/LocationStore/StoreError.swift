/// Why the location store refused to open, or why an operation failed: what kind of
/// failure, the file or directory it concerns, and the reason in words (SQLite's or the
/// system's message), so an operator can act on it.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure, each a different remedy.
    public enum Kind: String, Sendable, Equatable {
        /// The data directory is missing and could not be created (or is not a directory).
        case cannotCreateDirectory
        /// The directory or the database file cannot be written.
        case notWritable
        /// Another process (or another store in this one) has the data directory open.
        case inUse
        /// The file is not an SQLite database at all.
        case notADatabase
        /// The file is an SQLite database whose pages or schema are damaged.
        case corrupt
        /// An SQLite database, but not a locstream store.
        case foreignDatabase
        /// A locstream store written by a newer version, which this one cannot read safely.
        case newerSchema
        /// The disk (or the file system's quota) is full.
        case diskFull
        /// The operating system reported an I/O error.
        case ioError
        /// The write queue holds as many updates as it may; the write was not accepted.
        case queueFull
        /// The store is closed.
        case closed
        /// Any other SQLite failure.
        case sqlite
        /// The store's threads may not run on the CPUs asked for (`StoreCPUs`).
        case unusableCPUs
    }

    /// What went wrong.
    public let kind: Kind
    /// The file or directory concerned.
    public let path: String
    /// The reason, in words.
    public let reason: String

    /// An error of `kind` about `path`.
    public init(_ kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
