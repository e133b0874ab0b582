/// Percentiles of a latency histogram, in milliseconds, as the report shows them.
struct LatencySummary: Sendable, Equatable {
    var p50: Double
    var p90: Double
    var p99: Double
    var p999: Double
    var max: Double
    var mean: Double
    /// How many samples.
    var count: UInt64

    /// The summary of `histogram` (microseconds), or nil when it is empty.
    init?(_ histogram: LatencyHistogram) {
        guard let mean = histogram.mean, let p50 = histogram.value(atQuantile: 0.5),
            let p90 = histogram.value(atQuantile: 0.9), let p99 = histogram.value(atQuantile: 0.99),
            let p999 = histogram.value(atQuantile: 0.999)
        else { return nil }
        self.p50 = Double(p50) / 1000
        self.p90 = Double(p90) / 1000
        self.p99 = Double(p99) / 1000
        self.p999 = Double(p999) / 1000
        self.max = Double(histogram.max) / 1000
        self.mean = mean / 1000
        count = histogram.count
    }

    /// `{"p50":…,"p90":…,"p99":…,"p999":…,"max":…,"mean":…}`.
    var report: ReportValue {
        .object([
            ("p50", .number(p50)), ("p90", .number(p90)), ("p99", .number(p99)), ("p999", .number(p999)),
            ("max", .number(max)), ("mean", .number(mean)),
        ])
    }
}
