import Foundation

/// Writes a run's per-second samples, one JSON object per line, for `plot.py`.
public enum TimelineFile {
    /// The lines for the first `seconds` seconds of `tally` (the window and the drain).
    static func lines(_ tally: BenchTally, scenario: BenchScenario, label: String?) -> [String] {
        tally.seconds.enumerated().map { index, second in
            let latency = LatencySummary(second.latency)
            return ReportValue.object([
                ("scenario", .string(scenario.rawValue)),
                ("label", label.map(ReportValue.string) ?? .null),
                ("second", .int(index)),
                ("frames", .int(second.frames)),
                ("expected", .int(second.expected)),
                ("published", .int(second.published)),
                ("p50_ms", .number(latency?.p50)),
                ("p90_ms", .number(latency?.p90)),
                ("p99_ms", .number(latency?.p99)),
                ("max_ms", .number(latency?.max)),
                ("server_cpu_percent", .number(second.serverCPU)),
                ("bench_cpu_percent", .number(second.benchCPU)),
            ]).json
        }
    }

    /// Writes `lines` to `path`, replacing it.
    public static func write(_ lines: [String], to path: String) throws {
        let text = lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Appends `line` and a newline to `path`, creating it.
    public static func append(_ line: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        if !FileManager.default.fileExists(atPath: path) {
            try Data().write(to: url)
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((line + "\n").utf8))
    }
}
