import LocstreamProtocol

/// CPU time of the server and the bench summed over several spans of a run (the connect
/// waves of a storm, say), and the percentage of one core it makes over their total length.
struct CPUSpans: Sendable {
    private var serverTicks = 0
    private var benchTicks = 0
    private var seconds = 0.0
    private var serverMissing = false
    private var open: (server: ProcessSampler.CPUReading?, bench: ProcessSampler.CPUReading?)?

    /// Starts a span.
    mutating func start(server: ProcessSampler.CPUReading?, bench: ProcessSampler.CPUReading?) {
        open = (server, bench)
    }

    /// Ends the span started last.
    mutating func stop(server: ProcessSampler.CPUReading?, bench: ProcessSampler.CPUReading?) {
        guard let open, let benchStart = open.bench, let bench else { return }
        seconds += benchStart.at.duration(to: bench.at).seconds
        benchTicks += bench.ticks - benchStart.ticks
        if let serverStart = open.server, let server {
            serverTicks += server.ticks - serverStart.ticks
        } else {
            serverMissing = true
        }
        self.open = nil
    }

    /// The server's CPU over the spans, or nil when it was not sampled.
    var serverPercent: Double? { serverMissing || seconds <= 0 ? nil : percent(serverTicks) }

    /// The bench's CPU over the spans.
    var benchPercent: Double? { seconds <= 0 ? nil : percent(benchTicks) }

    private func percent(_ ticks: Int) -> Double {
        Double(ticks) / Double(ProcessSampler.ticksPerSecond) / seconds * 100
    }
}
