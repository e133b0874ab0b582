import WebSocketTransport

/// Opens idle, subscribed connections in steps and samples resident memory after each.
///
/// The connections watch devices nobody publishes for, so they cost the server memory
/// and nothing else; the slope of RSS against connections is the memory per connection.
struct CapacityRun: Sendable {
    let settings: BenchSettings
    let connector: BenchConnector

    /// What the run measured, and the connection figures of its waves.
    struct Result: Sendable {
        var outcome = CapacityOutcome()
        var connectsPerSecond: Double?
        var connectFailures = 0
        var tally = BenchTally()
    }

    /// Runs every step (or until a step connects nothing, or the task is cancelled).
    func run() async -> Result {
        let shared = BenchShared()
        let plan = WatchPlan(devices: settings.devices, perSubscriber: 1, prefix: settings.prefix + "idle-")
        let wave = ConnectWave(connector: connector, parallel: settings.parallel)
        let server = settings.serverPID.map { ProcessSampler(pid: $0) }
        let bench = ProcessSampler(pid: nil)
        var result = Result()
        var open: [WebSocketConnection] = []
        var connectSeconds = 0.0
        result.outcome.steps.append(
            .init(connections: 0, serverRSS: server?.residentKiB(), benchRSS: bench.residentKiB()))
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            while next < settings.connections, !Task.isCancelled {
                let range = next..<min(settings.connections, next + settings.step)
                next = range.upperBound
                let deadline = ContinuousClock.now + .seconds(30) + .milliseconds(range.count)
                let opened = await wave.open(range, deadline: deadline) { index, connection in
                    connection.send(OutboundFrame(body: plan.subscribeFrame(of: index)))
                }
                connectSeconds += opened.seconds
                result.connectFailures += opened.failures
                let fresh = opened.connections.compactMap { $0 }
                for connection in fresh {
                    group.addTask { await SubscriberReader(connection: connection, shared: shared, devices: 1).run() }
                }
                open += fresh
                let count = open.count
                await LoadRun.waitUntil(.now + settings.connection.timeout) {
                    shared.tally.withLock { $0.subscribed } >= count
                }
                try? await Task.sleep(for: .milliseconds(settings.settleMs))
                result.outcome.steps.append(
                    .init(connections: count, serverRSS: server?.residentKiB(), benchRSS: bench.residentKiB()))
                if fresh.isEmpty { break }
            }
            group.cancelAll()
        }
        for connection in open { connection.close(code: 1000) }
        result.connectsPerSecond = connectSeconds > 0 ? Double(open.count) / connectSeconds : nil
        result.tally = shared.snapshot()
        return result
    }
}
