/// One `stream-client bench` run: its threads' scheduling, its connections, the scenario
/// under the hard time limit, and what it reports.
public struct BenchRun: Sendable {
    /// What to run.
    let settings: BenchSettings

    /// A run of `settings`.
    public init(settings: BenchSettings) { self.settings = settings }

    /// Raises the open-file limit so the scenario's connections fit; throws, naming the
    /// option, when the hard limit is too low (a usage error).
    public func raiseFileLimit() throws(BenchFailure) {
        try FileLimit.ensure(settings.connectionsNeeded, option: settings.connectionsOption)
    }

    /// Runs the scenario; its result, or why it could not run.
    public func run() async -> Result<BenchResult, BenchFailure> {
        settings.scheduling.apply()
        let connector: BenchConnector
        do {
            connector = try await BenchConnector.start(settings)
        } catch {
            return .failure(BenchFailure("\(error)"))
        }
        let (outcome, timeline) = await runWithinTimeLimit(connector)
        await connector.shutdown()
        return outcome.map { BenchResult(report: $0, timeline: timeline) }
    }

    /// Runs the scenario; if `--time-limit` passes first, cancels it and keeps what it reports.
    private func runWithinTimeLimit(_ connector: BenchConnector) async -> (
        Result<BenchReport, BenchFailure>, [String]
    ) {
        let limit = Duration.seconds(settings.timeLimit)
        let settings = self.settings
        return await withTaskGroup(of: (Result<BenchReport, BenchFailure>, [String])?.self) { group in
            group.addTask { await BenchScenarioRunner(settings: settings, connector: connector).run() }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            var outcome: (Result<BenchReport, BenchFailure>, [String])?
            var timedOut = false
            while let next = await group.next() {
                if let next {
                    outcome = next
                    group.cancelAll()
                } else if outcome == nil {
                    timedOut = true
                    group.cancelAll()
                }
            }
            guard let (first, timeline) = outcome else {
                return (.failure(BenchFailure("stopped by --time-limit before any result")), [])
            }
            var result = first
            if timedOut, case .success(var report) = result {
                report.completed = false
                result = .success(report)
            }
            return (result, timeline)
        }
    }
}
