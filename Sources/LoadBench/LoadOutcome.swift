/// What one fanout-shaped run (fanout, churn, slow) measured.
struct LoadOutcome: Sendable {
    /// Everything the subscribers measured.
    var tally: BenchTally
    /// The frames the subscribers should have received in all; nil where it cannot be known
    /// exactly (churn changes what each watches).
    var expectedFrames: Int?
    /// The publishing window, in whole seconds.
    var windowSeconds: Int
    /// Subscribers that connected, and how fast.
    var subscribersConnected: Int
    var connectsPerSecond: Double
    var connectFailures: Int
    /// CPU use over the publishing window, in percent of one core.
    var serverCPU: Double?
    var benchCPU: Double?
    /// Resident memory at the end of the window, in KiB.
    var serverRSS: Int?
    var benchRSS: Int?
    /// Slow: the subscribers that never read.
    var slow: SlowOutcome?

    /// `loc` frames received within the window, per second.
    var deliveredPerSecond: Double {
        Double(tally.seconds.prefix(windowSeconds).reduce(0) { $0 + $1.frames }) / Double(max(1, windowSeconds))
    }

    /// Frames the window's publications should have produced, per second.
    var expectedPerSecond: Double {
        Double(tally.seconds.prefix(windowSeconds).reduce(0) { $0 + $1.expected }) / Double(max(1, windowSeconds))
    }

    /// Expected frames that never arrived (nil where `expectedFrames` is).
    var missing: Int? { expectedFrames.map { max(0, $0 - tally.counts.distinct) } }
}
