/// The figures of one bench run, whatever the scenario: `json` is the one line on stdout.
///
/// Every field is always present, as null where the scenario does not measure it, so the
/// lines of several runs share one shape.
struct BenchReport: Sendable {
    var scenario: BenchScenario
    var label: String?
    var url: String
    /// False when the time limit cut the run short.
    var completed = true
    /// The conditions: load shape, sizes, durations.
    var conditions: [(String, ReportValue)] = []
    var deliveredFPS: Double?
    var expectedFPS: Double?
    var frames: Int?
    var expectedFrames: Int?
    var latency: LatencySummary?
    var missing: Int?
    var counts: DeliveryCounts?
    var switchAck: LatencySummary?
    var switchesSent: Int?
    var connectsPerSecond: Double?
    var reconnectsPerSecond: Double?
    var connectFailures: Int?
    var errors = 0
    var errorSamples: [String] = []
    var disconnects = 0
    var publishSkipped: Int?
    var serverCPU: Double?
    var serverRSS: Int?
    var benchCPU: Double?
    var benchRSS: Int?
    var slow: SlowOutcome?
    var baseline: (fps: Double, latency: LatencySummary?)?
    var capacity: CapacityOutcome?

    /// Which process ran out of CPU: the server or the bench at 90 % of a core or more.
    var saturated: String {
        if let serverCPU, serverCPU >= 90 { return "server" }
        if let benchCPU, benchCPU >= 90 { return "bench" }
        return serverCPU == nil ? "unknown" : "neither"
    }

    /// The report as one JSON object.
    var json: ReportValue {
        var members: [(String, ReportValue)] = [
            ("scenario", .string(scenario.rawValue)),
            ("label", label.map(ReportValue.string) ?? .null),
            ("url", .string(url)),
            ("completed", .bool(completed)),
            ("conditions", .object(conditions)),
            ("delivered_fps", .number(deliveredFPS)),
            ("expected_fps", .number(expectedFPS)),
            ("frames", .int(frames)),
            ("expected_frames", .int(expectedFrames)),
            ("latency_ms", latency?.report ?? .null),
            ("missing", .int(missing)),
            ("seq_gaps", .int(counts?.seqGaps)),
            ("seq_skipped", .int(counts?.seqSkipped)),
            ("out_of_order", .int(counts?.outOfOrder)),
            ("duplicates", .int(counts?.duplicates)),
            ("stale_after_ack", .int(counts?.staleAfterAck)),
            ("switch_ack_ms", switchAck.map(Self.switchReport) ?? .null),
            ("switches_sent", .int(switchesSent)),
            ("connects_per_s", .number(connectsPerSecond)),
            ("reconnects_per_s", .number(reconnectsPerSecond)),
            ("connect_failures", .int(connectFailures)),
            ("errors", .int(errors)),
            ("error_samples", .array(errorSamples.map(ReportValue.string))),
            ("disconnects", .int(disconnects)),
            ("publish_skipped", .int(publishSkipped)),
            ("server_cpu_percent", .number(serverCPU)),
            ("server_rss_kib", .int(serverRSS)),
            ("bench_cpu_percent", .number(benchCPU)),
            ("bench_rss_kib", .int(benchRSS)),
            ("saturated", .string(saturated)),
        ]
        members.append(("slow", slow.map(Self.slowReport) ?? .null))
        members.append(
            (
                "baseline",
                baseline.map {
                    .object([("delivered_fps", .number($0.fps)), ("latency_ms", $0.latency?.report ?? .null)])
                } ?? .null
            ))
        members.append(("capacity", capacity?.report ?? .null))
        return .object(members)
    }

    private static func switchReport(_ summary: LatencySummary) -> ReportValue {
        .object([
            ("p50", .number(summary.p50)), ("p99", .number(summary.p99)), ("max", .number(summary.max)),
            ("count", .int(Int(clamping: summary.count))),
        ])
    }

    private static func slowReport(_ slow: SlowOutcome) -> ReportValue {
        let codes = slow.closeCodes.sorted { $0.key < $1.key }.map { (String($0.key), ReportValue.int($0.value)) }
        return .object([
            ("connections", .int(slow.connections)),
            ("open_at_end", .int(slow.openAtEnd)),
            ("closed_by_code", .object(codes)),
            ("frames_read_at_end", .int(slow.counts.frames)),
            ("expected_frames", .int(slow.expectedFrames)),
            ("seq_gaps", .int(slow.counts.seqGaps)),
            ("seq_skipped", .int(slow.counts.seqSkipped)),
            ("out_of_order", .int(slow.counts.outOfOrder)),
            ("duplicates", .int(slow.counts.duplicates)),
        ])
    }
}
