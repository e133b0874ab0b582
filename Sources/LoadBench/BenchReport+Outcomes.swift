extension BenchReport {
    /// A report for `settings`, with the conditions every scenario shares.
    init(settings: BenchSettings) {
        self.init(scenario: settings.scenario, label: settings.label, url: settings.connection.url)
        conditions = [
            ("clients", .int(settings.clients)),
            ("source_addresses", .int(settings.sourceAddresses)),
            ("parallel_connects", .int(settings.parallel)),
            ("bench_scheduling", .string(settings.scheduling.rawValue)),
        ]
    }

    /// Fills in what a fanout-shaped run measured.
    mutating func add(load outcome: LoadOutcome, settings: BenchSettings) {
        let tally = outcome.tally
        let frames = tally.counts.frames
        conditions =
            [
                ("subscribers", .int(outcome.subscribersConnected)),
                ("subscribers_requested", .int(settings.subscribers)),
                ("devices", .int(settings.devices)),
                ("per_subscriber", .int(settings.perSubscriber)),
                ("rate", .number(settings.rate)),
                ("duration_s", .int(outcome.windowSeconds)),
                ("publishers", .int(settings.publishers)),
                ("cycle_ms", .int(settings.cycleMs)),
                ("attrs_bytes", .int(settings.attrsBytes)),
                ("payload_bytes", .number(frames > 0 ? Double(tally.counts.bytes) / Double(frames) : nil)),
            ] + conditions
        if settings.scenario == .churn { conditions.append(("switch_ms", .int(settings.switchMs))) }
        if settings.scenario == .slow { conditions.append(("slow", .int(settings.slow))) }
        deliveredFPS = outcome.deliveredPerSecond
        expectedFPS =
            settings.scenario == .churn
            ? settings.rate / Double(settings.devices) * Double(settings.perSubscriber)
                * Double(outcome.subscribersConnected)
            : outcome.expectedPerSecond
        self.frames = frames
        expectedFrames = outcome.expectedFrames
        latency = LatencySummary(tally.latency)
        missing = outcome.missing
        counts = tally.counts
        if settings.scenario == .churn {
            switchAck = LatencySummary(tally.switchAck)
            switchesSent = tally.switchesSent
        }
        connectsPerSecond = outcome.connectsPerSecond
        connectFailures = outcome.connectFailures
        errors = tally.counts.errors
        errorSamples = tally.errorSamples
        disconnects = tally.disconnects
        publishSkipped = tally.publishSkipped
        serverCPU = outcome.serverCPU
        serverRSS = outcome.serverRSS
        benchCPU = outcome.benchCPU
        benchRSS = outcome.benchRSS
        slow = outcome.slow
    }

    /// Fills in what the capacity scenario measured.
    mutating func add(capacity result: CapacityRun.Result, settings: BenchSettings) {
        conditions =
            [
                ("connections", .int(settings.connections)), ("step", .int(settings.step)),
                ("settle_ms", .int(settings.settleMs)),
            ] + conditions
        capacity = result.outcome
        connectsPerSecond = result.connectsPerSecond
        connectFailures = result.connectFailures
        errors = result.tally.counts.errors
        errorSamples = result.tally.errorSamples
        disconnects = result.tally.disconnects
        serverRSS = result.outcome.steps.last?.serverRSS
        benchRSS = result.outcome.steps.last?.benchRSS
    }

    /// Fills in what the storm scenario measured.
    mutating func add(storm result: StormRun.Result, settings: BenchSettings) {
        conditions = [("connections", .int(settings.connections))] + conditions
        connectsPerSecond = result.first?.connectsPerSecond
        reconnectsPerSecond = result.second?.connectsPerSecond
        connectFailures = (result.first?.failures ?? 0) + (result.second?.failures ?? 0)
        errorSamples = (result.first?.failureSamples ?? []) + (result.second?.failureSamples ?? [])
        errors = connectFailures ?? 0
        disconnects = result.notClosed
        serverCPU = result.serverCPU
        benchCPU = result.benchCPU
    }
}
