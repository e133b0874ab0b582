import WebSocketTransport

/// Opens `--connections` connections as fast as `--parallel` allows, then closes them all
/// and reconnects them all at once, timing both waves.
struct StormRun: Sendable {
    let settings: BenchSettings
    let connector: BenchConnector

    /// The two waves.
    struct Result: Sendable {
        var first: ConnectWave.Outcome?
        var second: ConnectWave.Outcome?
        /// Connections still open when the close wave's wait was over.
        var notClosed = 0
        /// CPU use over both connect waves (closing excluded), in percent of one core.
        var serverCPU: Double?
        var benchCPU: Double?
    }

    /// Runs both waves; each is bounded by the connect timeout and a deadline.
    func run() async -> Result {
        var result = Result()
        let wave = ConnectWave(connector: connector, parallel: settings.parallel)
        let count = settings.connections
        let server = settings.serverPID.map { ProcessSampler(pid: $0) }
        let bench = ProcessSampler(pid: nil)
        var busy = CPUSpans()
        busy.start(server: server?.cpu(), bench: bench.cpu())
        let first = await wave.open(0..<count, deadline: deadline(count))
        busy.stop(server: server?.cpu(), bench: bench.cpu())
        result.first = first
        result.notClosed = await closeAll(first.connections.compactMap { $0 })
        if !Task.isCancelled {
            busy.start(server: server?.cpu(), bench: bench.cpu())
            let second = await wave.open(count..<(2 * count), deadline: deadline(count))
            busy.stop(server: server?.cpu(), bench: bench.cpu())
            result.second = second
            _ = await closeAll(second.connections.compactMap { $0 })
        }
        (result.serverCPU, result.benchCPU) = (busy.serverPercent, busy.benchPercent)
        return result
    }

    private func deadline(_ count: Int) -> ContinuousClock.Instant {
        .now + .seconds(30) + .milliseconds(count)
    }

    /// Closes every connection at once and waits (bounded) until each has ended; returns how
    /// many had not.
    private func closeAll(_ connections: [WebSocketConnection]) async -> Int {
        guard !connections.isEmpty else { return 0 }
        for connection in connections { connection.close(code: 1000) }
        return await withTaskGroup(of: Bool.self) { group in
            for connection in connections {
                group.addTask {
                    for await _ in connection.messages {}
                    return !Task.isCancelled
                }
            }
            group.addTask {
                try? await Task.sleep(for: settings.connection.timeout)
                return false
            }
            var closed = 0
            while let ended = await group.next() {
                guard ended else {
                    group.cancelAll()  // the timer fired: stop waiting for the rest
                    continue
                }
                closed += 1
                if closed == connections.count { break }
            }
            group.cancelAll()
            return connections.count - closed
        }
    }
}
