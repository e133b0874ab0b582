import Foundation
import OptionParsing

/// `stream-client bench`: runs one scenario under a hard time limit, then prints the human
/// summary (stderr) and the JSON report (stdout, and appended to `--out`).
struct BenchCommand: Sendable {
    let settings: BenchSettings

    /// Runs the benchmark; returns the exit status.
    func run() async -> Int32 {
        do {
            try FileLimit.ensure(settings.connectionsNeeded, option: settings.connectionsOption)
        } catch {
            Console.error("bench: \(error)")
            return ExitStatus.usage
        }
        settings.scheduling.apply()
        let connector: BenchConnector
        do {
            connector = try await BenchConnector.start(settings)
        } catch {
            Console.error("bench: \(error)")
            return ExitStatus.failure
        }
        let (outcome, timeline) = await runWithinTimeLimit(connector)
        await connector.shutdown()
        switch outcome {
        case .failure(let failure):
            Console.error("bench: \(failure)")
            return ExitStatus.failure
        case .success(let report):
            for line in BenchSummary.lines(report) { Console.text(line, toStandardError: true) }
            let json = report.json.json
            Console.out(json)
            return write(json: json, timeline: timeline) ? ExitStatus.success : ExitStatus.failure
        }
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

    private func write(json: String, timeline: [String]) -> Bool {
        var ok = true
        if let out = settings.out {
            do {
                try TimelineFile.append(json, to: out)
            } catch {
                Console.error("bench: --out: cannot append to '\(out)': \(error.localizedDescription)")
                ok = false
            }
        }
        if let path = settings.timeline {
            do {
                try TimelineFile.write(timeline, to: path)
            } catch {
                Console.error("bench: --timeline: cannot write '\(path)': \(error.localizedDescription)")
                ok = false
            }
        }
        return ok
    }
}
