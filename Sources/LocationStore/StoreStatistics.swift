/// What the store has done since it was opened, read from its metrics.
public struct StoreStatistics: Sendable, Equatable {
    /// Group transactions committed.
    public var commits: Int
    /// Updates written.
    public var rowsWritten: Int
    /// Transactions that failed.
    public var errors: Int
}
