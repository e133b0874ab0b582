import Foundation

/// The standard process metrics of the Prometheus client libraries, read from `/proc` at
/// each scrape: `process_cpu_seconds_total`, `process_resident_memory_bytes`,
/// `process_open_fds`, `process_max_fds` and `process_start_time_seconds`. A figure that
/// cannot be read (no `/proc`) is left out rather than shown as 0.
public enum ProcessMetrics {
    /// The exposition of this process's figures now.
    public static func render() -> String {
        render(ProcessSample.read())
    }

    /// The exposition of `sample`.
    static func render(_ sample: ProcessSample) -> String {
        let rows: [(name: String, type: String, help: String, value: String?)] = [
            (
                "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
                sample.cpuSeconds.map { "\($0)" }
            ),
            (
                "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
                sample.residentBytes.map(String.init)
            ),
            ("process_open_fds", "gauge", "Number of open file descriptors.", sample.openFDs.map(String.init)),
            ("process_max_fds", "gauge", "Maximum number of open file descriptors.", sample.maxFDs.map(String.init)),
            (
                "process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.",
                sample.startTimeSeconds.map { "\($0)" }
            ),
        ]
        return rows.compactMap { row in
            row.value.map { "# HELP \(row.name) \(row.help)\n# TYPE \(row.name) \(row.type)\n\(row.name) \($0)\n" }
        }.joined()
    }
}
