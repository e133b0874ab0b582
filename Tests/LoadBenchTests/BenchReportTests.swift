import Foundation
import LocstreamProtocol
import Testing

@testable import LoadBench

/// The JSON report, its number formatting, and the /proc readers behind its CPU and RSS.
@Suite("bench report")
struct BenchReportTests {
    @Test("numbers: at most three decimals, integers bare, non-finite as null")
    func numbers() {
        #expect(ReportValue.format(3) == "3")
        #expect(ReportValue.format(0.1234) == "0.123")
        #expect(ReportValue.format(2.5) == "2.5")
        #expect(ReportValue.format(-0.0001) == "0")
        #expect(ReportValue.format(.nan) == "null")
        #expect(ReportValue.number(.infinity).json == "null")
    }

    @Test("objects keep their order; strings are escaped")
    func objects() {
        let value = ReportValue.object([
            ("b", .int(1)), ("a", .string("say \"hi\"\n")), ("n", .null), ("l", .array([.bool(true), .number(nil)])),
        ])
        #expect(value.json == #"{"b":1,"a":"say \"hi\"\n","n":null,"l":[true,null]}"#)
    }

    @Test("a report is one JSON object with every field, null where not measured")
    func reportShape() throws {
        var report = BenchReport(scenario: .storm, label: "x", url: "ws://127.0.0.1:1/v1/stream")
        report.connectsPerSecond = 1234.5
        let text = report.json.json
        guard case .object(let members) = try JSONValue(parsing: Array(text.utf8)) else {
            Issue.record("not an object")
            return
        }
        for key in [
            "scenario", "conditions", "delivered_fps", "expected_fps", "latency_ms", "missing", "seq_gaps",
            "out_of_order", "duplicates", "stale_after_ack", "switch_ack_ms", "connects_per_s", "errors",
            "disconnects", "server_cpu_percent", "server_rss_kib", "saturated",
        ] {
            #expect(members[key] != nil, "missing \(key)")
        }
        #expect(members["latency_ms"] == .null)
        #expect(members["connects_per_s"]?.doubleValue == 1234.5)
        #expect(!text.contains("\n"))
    }

    @Test("latency is reported in milliseconds")
    func latencyInMilliseconds() {
        var histogram = LatencyHistogram()
        for value in Int64(1)...1000 { histogram.record(value * 10) }
        let summary = LatencySummary(histogram)
        #expect(summary?.max == 10)
        #expect((summary?.p50 ?? 0) >= 5 && (summary?.p50 ?? 0) <= 5.2)
        #expect(LatencySummary(LatencyHistogram()) == nil)
    }

    @Test("which process saturated")
    func saturation() {
        var report = BenchReport(scenario: .fanout, label: nil, url: "ws://127.0.0.1:1")
        #expect(report.saturated == "unknown")
        report.benchCPU = 95
        #expect(report.saturated == "bench")
        report.serverCPU = 40
        #expect(report.saturated == "bench")
        report.benchCPU = 50
        #expect(report.saturated == "neither")
        report.serverCPU = 99
        #expect(report.saturated == "server")
    }

    @Test("/proc parsing: utime+stime after the command's last parenthesis, VmRSS in KiB")
    func procParsing() {
        let stat = "1234 (a (weird) name) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 3 0 500 1000 200"
        #expect(ProcessSampler.parseStat(stat) == 325)
        #expect(ProcessSampler.parseStat("garbage") == nil)
        #expect(ProcessSampler.parseResident("Name:\tx\nVmRSS:\t   12345 kB\nVmSwap:\t0 kB\n") == 12345)
        #expect(ProcessSampler.parseResident("Name:\tx\n") == nil)
        #expect(ProcessSampler(pid: nil).residentKiB() ?? 0 > 0)
        #expect(ProcessSampler(pid: nil).cpu() != nil)
    }

    @Test("the timeline has one line per second")
    func timeline() throws {
        var tally = BenchTally()
        tally.originSecond = 10
        _ = tally.withSecond(11) { entry in
            entry.frames = 5
            entry.latency.record(2000)
        }
        let lines = TimelineFile.lines(tally, scenario: .fanout, label: nil)
        #expect(lines.count == 2)
        guard case .object(let second) = try JSONValue(parsing: Array(lines[1].utf8)) else {
            Issue.record("not an object")
            return
        }
        #expect(second["second"] == .integer(1) && second["frames"] == .integer(5) && second["p50_ms"] == .integer(2))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bench-out-\(getpid()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try TimelineFile.append("{}", to: path)
        try TimelineFile.append("[]", to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{}\n[]\n")
    }
}
