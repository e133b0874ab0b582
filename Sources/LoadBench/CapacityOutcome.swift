/// What the capacity scenario measured: resident memory against idle connections.
struct CapacityOutcome: Sendable, Equatable {
    /// One sample after a step.
    struct Step: Sendable, Equatable {
        /// Connections open and subscribed.
        var connections: Int
        var serverRSS: Int?
        var benchRSS: Int?
    }

    var steps: [Step] = []

    /// The least-squares slope of the server's RSS against connections, in KiB per connection.
    var serverKiBPerConnection: Double? {
        Self.slope(steps.compactMap { s in s.serverRSS.map { (s.connections, $0) } })
    }

    /// The same for the bench's own RSS.
    var benchKiBPerConnection: Double? { Self.slope(steps.compactMap { s in s.benchRSS.map { (s.connections, $0) } }) }

    /// The least-squares slope of `points` (x, y); nil with fewer than two distinct x.
    static func slope(_ points: [(Int, Int)]) -> Double? {
        guard points.count >= 2 else { return nil }
        let n = Double(points.count)
        let meanX = points.reduce(0.0) { $0 + Double($1.0) } / n
        let meanY = points.reduce(0.0) { $0 + Double($1.1) } / n
        var covariance = 0.0
        var variance = 0.0
        for (x, y) in points {
            covariance += (Double(x) - meanX) * (Double(y) - meanY)
            variance += (Double(x) - meanX) * (Double(x) - meanX)
        }
        return variance > 0 ? covariance / variance : nil
    }

    /// `{"steps":[…],"kib_per_connection":…,"bench_kib_per_connection":…}`.
    var report: ReportValue {
        .object([
            (
                "steps",
                .array(
                    steps.map {
                        .object([
                            ("connections", .int($0.connections)), ("server_rss_kib", .int($0.serverRSS)),
                            ("bench_rss_kib", .int($0.benchRSS)),
                        ])
                    })
            ),
            ("kib_per_connection", .number(serverKiBPerConnection)),
            ("bench_kib_per_connection", .number(benchKiBPerConnection)),
        ])
    }
}
