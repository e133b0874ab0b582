/// One second of a run, for `--timeline` and the plots.
struct TimelineSecond: Sendable, Equatable {
    /// `loc` frames received in this second.
    var frames = 0
    /// Frames the publications of this second should have produced.
    var expected = 0
    /// Locations published in this second.
    var published = 0
    /// Latency of the frames received in this second.
    var latency = LatencyHistogram()
    /// The server's and the bench's CPU use over this second, in percent of one core.
    var serverCPU: Double?
    var benchCPU: Double?
}
