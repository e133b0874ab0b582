import Locking

/// Samples the server's and the bench's CPU once a second into the timeline.
struct SecondSampler: Sendable {
    let server: ProcessSampler?
    let shared: BenchShared

    /// Samples at each whole second from `originSecond` (Unix seconds), `seconds` times or
    /// until cancelled.
    func run(originSecond: Int64, seconds: Int) async {
        let bench = ProcessSampler(pid: nil)
        var previous = (server: server?.cpu(), bench: bench.cpu())
        for second in 0..<seconds {
            let wake = (originSecond + Int64(second) + 1) * 1_000_000
            let wait = wake - WallClock.micros()
            if wait > 0 { try? await Task.sleep(for: .microseconds(wait)) }
            if Task.isCancelled { return }
            let current = (server: server?.cpu(), bench: bench.cpu())
            let serverCPU = Self.percent(previous.server, current.server)
            let benchCPU = Self.percent(previous.bench, current.bench)
            shared.tally.withLock { tally in
                _ = tally.withSecond(originSecond + Int64(second)) { entry in
                    entry.serverCPU = serverCPU
                    entry.benchCPU = benchCPU
                }
            }
            previous = current
        }
    }

    private static func percent(_ start: ProcessSampler.CPUReading?, _ end: ProcessSampler.CPUReading?) -> Double? {
        guard let start, let end else { return nil }
        return ProcessSampler.percent(from: start, to: end)
    }
}
