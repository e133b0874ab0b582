import WebSocketTransport

/// One fanout-shaped run: connect the publishers and subscribers, wait until every
/// subscriber is subscribed, publish for the duration (switching subs for churn), wait for
/// the last frames, then stop. Slow subscribers connect and subscribe but are never read
/// until the end.
struct LoadRun: Sendable {
    let settings: BenchSettings
    let connector: BenchConnector
    /// Churn: switch every subscriber's sub every `settings.switchMs`.
    var churn = false
    /// Subscribers that never read.
    var slowCount = 0

    private var plan: WatchPlan {
        WatchPlan(devices: settings.devices, perSubscriber: settings.perSubscriber, prefix: settings.prefix)
    }

    /// Runs; throws when the publishers or every subscriber failed to connect.
    func run() async throws(BenchFailure) -> LoadOutcome {
        let shared = BenchShared()
        let plan = self.plan
        let publishers = settings.publishers
        let wave = ConnectWave(connector: connector, parallel: settings.parallel)
        let total = settings.subscribers + slowCount
        let deadline = ContinuousClock.now + .seconds(30) + .milliseconds(total)
        let publisherWave = await wave.open(0..<publishers, deadline: deadline, publishers: true)
        let publisherConnections = publisherWave.connections.compactMap { $0 }
        defer { for connection in publisherConnections { connection.close(code: 1000) } }
        guard publisherConnections.count == publishers else {
            throw BenchFailure("cannot connect the publishers: \(publisherWave.failureSamples.joined(separator: "; "))")
        }
        let subscriberWave = await wave.open(publishers..<(publishers + total), deadline: deadline) {
            index, connection in
            connection.send(OutboundFrame(body: plan.subscribeFrame(of: index - publishers)))
        }
        let opened = subscriberWave.connections.enumerated().compactMap { offset, connection in
            connection.map { (index: offset, connection: $0) }
        }
        defer { for entry in opened { entry.connection.close(code: 1000) } }
        let readers = opened.filter { $0.index < settings.subscribers }
        let slow = opened.filter { $0.index >= settings.subscribers }
        guard !readers.isEmpty else {
            throw BenchFailure(
                "no subscriber could connect: \(subscriberWave.failureSamples.joined(separator: "; "))")
        }
        var outcome = LoadOutcome(
            tally: BenchTally(), expectedFrames: nil, windowSeconds: settings.duration,
            subscribersConnected: readers.count, connectsPerSecond: subscriberWave.connectsPerSecond,
            connectFailures: subscriberWave.failures)
        let watchers = plan.watchers(of: readers.map(\.index))
        let published = await withTaskGroup(of: Void.self) { group in
            for entry in readers {
                // On the client's service thread: a frame is counted in the turn that read
                // it, with no hop to a pool thread that the busy lws thread would delay.
                group.addTask(executorPreference: entry.connection.executor) {
                    await SubscriberReader(
                        connection: entry.connection, shared: shared, devices: settings.perSubscriber
                    ).run()
                }
            }
            for connection in publisherConnections {
                group.addTask { await SubscriberReader(connection: connection, shared: shared, devices: 1).run() }
            }
            let published = await publishPhase(
                shared: shared, readers: readers, watchers: watchers, publishers: publisherConnections,
                group: &group, outcome: &outcome)
            group.cancelAll()
            return published
        }
        outcome.tally = shared.snapshot()
        let expected = plan.expectedFrames(of: readers.map(\.index), published: published)
        if !churn { outcome.expectedFrames = expected }
        outcome.tally.publishedPerDevice = published
        if !slow.isEmpty {
            let slowExpected = plan.expectedFrames(of: slow.map(\.index), published: published)
            outcome.slow = await SlowDrain(
                connections: slow.map(\.connection), devices: settings.perSubscriber,
                patience: .milliseconds(Int64(max(2, settings.drainSeconds) * 1000))
            ).run(expectedFrames: slowExpected)
        }
        return outcome
    }

    /// Waits for the subscriptions, publishes for the window, and drains. Returns the
    /// locations published per device.
    private func publishPhase(
        shared: BenchShared, readers: [(index: Int, connection: WebSocketConnection)], watchers: [Int],
        publishers: [WebSocketConnection], group: inout TaskGroup<Void>, outcome: inout LoadOutcome
    ) async -> [Int] {
        await Self.waitUntil(ContinuousClock.now + settings.connection.timeout) {
            shared.tally.withLock { $0.subscribed } >= readers.count
        }
        let originMicros = (WallClock.micros() / 1_000_000 + 1) * 1_000_000
        let originSecond = originMicros / 1_000_000
        shared.tally.withLock { $0.originSecond = originSecond }
        try? await Task.sleep(for: .microseconds(max(0, originMicros - WallClock.micros())))
        let origin = ContinuousClock.now
        let server = settings.serverPID.map { ProcessSampler(pid: $0) }
        let bench = ProcessSampler(pid: nil)
        let cpuStart = (server: server?.cpu(), bench: bench.cpu())
        let sampledSeconds = settings.duration + Int(settings.drainSeconds.rounded(.up)) + 1
        group.addTask {
            await SecondSampler(server: server, shared: shared).run(originSecond: originSecond, seconds: sampledSeconds)
        }
        let windowEnd = origin + .seconds(settings.duration)
        if churn {
            let switcher = ChurnSwitcher(
                connections: readers, plan: plan, interval: .milliseconds(settings.switchMs), shared: shared)
            group.addTask { await switcher.run(origin: origin, end: windowEnd) }
        }
        let encoder = PublishEncoder(
            devices: settings.devices, prefix: settings.prefix, attrsBytes: settings.attrsBytes,
            maxMessageBytes: settings.maxMessageBytes)
        let publisher = Publisher(
            connections: publishers, encoder: encoder, devices: settings.devices, rate: settings.rate,
            duration: settings.duration, cycle: .milliseconds(settings.cycleMs), watchers: watchers, shared: shared)
        let published = await publisher.run(originMicros: originMicros)
        try? await Task.sleep(until: windowEnd, clock: .continuous)
        let cpuEnd = (server: server?.cpu(), bench: bench.cpu())
        if let start = cpuStart.server, let end = cpuEnd.server {
            outcome.serverCPU = ProcessSampler.percent(from: start, to: end)
        }
        if let start = cpuStart.bench, let end = cpuEnd.bench {
            outcome.benchCPU = ProcessSampler.percent(from: start, to: end)
        }
        outcome.serverRSS = server?.residentKiB()
        outcome.benchRSS = bench.residentKiB()
        let expected = churn ? nil : plan.expectedFrames(of: readers.map(\.index), published: published)
        await drain(shared: shared, expected: expected)
        return published
    }

    /// Waits until every expected frame has arrived, frames stop arriving for a second, or
    /// `--drain` is over.
    private func drain(shared: BenchShared, expected: Int?) async {
        let end = ContinuousClock.now + .milliseconds(Int64(settings.drainSeconds * 1000))
        var last = shared.frames.total
        var lastChange = ContinuousClock.now
        while ContinuousClock.now < end, !Task.isCancelled {
            if let expected, last >= expected { return }
            try? await Task.sleep(for: .milliseconds(50))
            let now = shared.frames.total
            if now != last {
                last = now
                lastChange = .now
            } else if lastChange.duration(to: .now) > .seconds(1) {
                return
            }
        }
    }

    /// Polls `condition` every 20 ms until it holds or `deadline` passes.
    static func waitUntil(_ deadline: ContinuousClock.Instant, _ condition: () -> Bool) async {
        while !condition(), ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
