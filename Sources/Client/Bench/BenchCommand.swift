import Foundation
import LoadBench

/// `stream-client bench`: runs one scenario under a hard time limit, then prints the human
/// summary (stderr) and the JSON report (stdout, and appended to `--out`).
struct BenchCommand: Sendable {
    let settings: BenchSettings

    /// Runs the benchmark; returns the exit status.
    func run() async -> Int32 {
        let bench = BenchRun(settings: settings)
        do {
            try bench.raiseFileLimit()
        } catch {
            Console.error("bench: \(error)")
            return ExitStatus.usage
        }
        switch await bench.run() {
        case .failure(let failure):
            Console.error("bench: \(failure)")
            return ExitStatus.failure
        case .success(let result):
            for line in result.summary { Console.text(line, toStandardError: true) }
            Console.out(result.json)
            return write(json: result.json, timeline: result.timeline) ? ExitStatus.success : ExitStatus.failure
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
