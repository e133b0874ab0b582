/// The human summary of a report, a few lines for stderr.
enum BenchSummary {
    /// The lines describing `report`.
    static func lines(_ report: BenchReport) -> [String] {
        var lines = ["bench \(report.scenario.rawValue)" + (report.completed ? "" : " (cut short by --time-limit)")]
        let conditions = report.conditions.map { "\($0.0)=\($0.1.json)" }.joined(separator: " ")
        lines.append("  conditions: \(conditions)")
        if let delivered = report.deliveredFPS {
            let expected = report.expectedFPS.map { " of \(ReportValue.format($0)) expected" } ?? ""
            lines.append("  delivered: \(ReportValue.format(delivered)) frames/s\(expected)")
        }
        if let latency = report.latency {
            lines.append(
                "  latency ms: p50 \(show(latency.p50))  p90 \(show(latency.p90))  p99 \(show(latency.p99))  "
                    + "p99.9 \(show(latency.p999))  max \(show(latency.max))")
        }
        if let counts = report.counts {
            lines.append(
                "  missing \(report.missing.map(String.init) ?? "n/a"), seq gaps \(counts.seqGaps) "
                    + "(\(counts.seqSkipped) skipped), out of order \(counts.outOfOrder), "
                    + "duplicates \(counts.duplicates), stale after ack \(counts.staleAfterAck)")
        }
        if let ack = report.switchAck {
            lines.append("  switch ack ms: p50 \(show(ack.p50))  p99 \(show(ack.p99))  (\(ack.count) switches)")
        }
        if let connects = report.connectsPerSecond {
            let reconnects = report.reconnectsPerSecond.map { ", reconnect wave \(ReportValue.format($0))/s" } ?? ""
            lines.append(
                "  connects: \(ReportValue.format(connects))/s\(reconnects), failures \(report.connectFailures ?? 0)")
        }
        if let capacity = report.capacity {
            let slope = capacity.serverKiBPerConnection.map { ReportValue.format($0) } ?? "n/a"
            let last = capacity.steps.last
            lines.append(
                "  capacity: \(last?.connections ?? 0) connections, server RSS \(last?.serverRSS.map(String.init) ?? "n/a") "
                    + "KiB, \(slope) KiB per connection")
        }
        if let slow = report.slow {
            let codes = slow.closeCodes.sorted { $0.key < $1.key }.map { "\($0.value)×\($0.key)" }
            lines.append(
                "  slow: \(slow.connections) connected, \(slow.openAtEnd) still open, closed \(codes.isEmpty ? "none" : codes.joined(separator: " ")), "
                    + "\(slow.counts.frames) frames read at the end (\(slow.counts.seqSkipped) seqs skipped)")
        }
        if let baseline = report.baseline {
            let p99 = baseline.latency.map { show($0.p99) } ?? "n/a"
            lines.append(
                "  baseline without slow subscribers: \(ReportValue.format(baseline.fps)) frames/s, p99 \(p99) ms")
        }
        let server = report.serverCPU.map { "server CPU \(ReportValue.format($0)) %" } ?? "server CPU n/a"
        let bench = report.benchCPU.map { "bench CPU \(ReportValue.format($0)) %" } ?? "bench CPU n/a"
        lines.append("  \(server), \(bench): saturated \(report.saturated)")
        lines.append("  errors \(report.errors), disconnects \(report.disconnects)")
        for sample in report.errorSamples { lines.append("    \(sample)") }
        return lines
    }

    private static func show(_ value: Double) -> String { ReportValue.format(value) }
}
