import Observability

/// The store's metrics: commit latency, commits, rows written and errors, plus the
/// size of its files and the updates waiting, sampled when metrics are rendered. They
/// go into the server's registry, or into one of their own when none is given (the
/// store's `statistics` read them either way).
struct StoreMetrics: Sendable {
    /// Seconds from `BEGIN` to the end of `COMMIT`, per group transaction.
    let commitSeconds: Histogram
    /// Group transactions committed.
    let commits: Counter
    /// Updates written (a device row and a history row each).
    let rowsWritten: Counter
    /// Transactions that failed (disk full, I/O errors…).
    let errors: Counter

    /// Registers the metrics in `registry` (or a private one); `size` and `queued`
    /// are sampled for the gauges.
    init(
        registry: MetricsRegistry?, size: @escaping @Sendable () -> Int, queued: @escaping @Sendable () -> Int
    ) {
        let registry = registry ?? MetricsRegistry()
        commitSeconds = registry.histogram(
            "store_commit_seconds", help: "Time to write and commit one group of store writes.",
            bounds: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1])
        commits = registry.counter("store_commits_total", help: "Group transactions committed by the store.")
        rowsWritten = registry.counter("store_rows_written_total", help: "Location updates written to the store.")
        errors = registry.counter("store_errors_total", help: "Store transactions that failed and will be retried.")
        registry.gauge("store_size_bytes", help: "Bytes of the store's database and WAL files.", sample: size)
        registry.gauge("store_queued_updates", help: "Updates accepted and not yet committed.", sample: queued)
    }
}
