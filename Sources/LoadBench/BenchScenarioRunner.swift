/// Runs the scenario `settings` names and turns its outcome into a report (and, for the
/// publishing scenarios, a timeline).
struct BenchScenarioRunner: Sendable {
    let settings: BenchSettings
    let connector: BenchConnector

    /// The report and the timeline lines, or why the run could not happen.
    func run() async -> (Result<BenchReport, BenchFailure>, [String]) {
        var report = BenchReport(settings: settings)
        do throws(BenchFailure) {
            switch settings.scenario {
            case .fanout, .churn:
                let outcome = try await LoadRun(
                    settings: settings, connector: connector, churn: settings.scenario == .churn
                ).run()
                report.add(load: outcome, settings: settings)
                return (.success(report), timeline(outcome))
            case .slow:
                if settings.baseline {
                    let baseline = try await LoadRun(settings: settings, connector: connector).run()
                    report.baseline = (baseline.deliveredPerSecond, LatencySummary(baseline.tally.latency))
                }
                let outcome = try await LoadRun(settings: settings, connector: connector, slowCount: settings.slow)
                    .run()
                let baseline = report.baseline
                report.add(load: outcome, settings: settings)
                report.baseline = baseline
                return (.success(report), timeline(outcome))
            case .capacity:
                report.add(
                    capacity: await CapacityRun(settings: settings, connector: connector).run(), settings: settings)
                return (.success(report), [])
            case .storm:
                report.add(storm: await StormRun(settings: settings, connector: connector).run(), settings: settings)
                return (.success(report), [])
            }
        } catch {
            return (.failure(error), [])
        }
    }

    private func timeline(_ outcome: LoadOutcome) -> [String] {
        TimelineFile.lines(outcome.tally, scenario: settings.scenario, label: settings.label)
    }
}
