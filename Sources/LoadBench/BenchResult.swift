/// What a finished run hands the command: the human summary, the JSON report, and the
/// per-second timeline.
public struct BenchResult: Sendable {
    /// The summary's lines, for stderr.
    public let summary: [String]
    /// The report as one line of JSON, for stdout and `--out`.
    public let json: String
    /// The timeline's lines, for `--timeline` (empty for capacity and storm).
    public let timeline: [String]

    /// The result of a run that reported `report` and `timeline`.
    init(report: BenchReport, timeline: [String]) {
        summary = BenchSummary.lines(report)
        json = report.json.json
        self.timeline = timeline
    }
}
