/// What became of the subscribers that never read, once the run was over.
struct SlowOutcome: Sendable, Equatable {
    /// Slow subscribers connected.
    var connections = 0
    /// Still open when the drain ended.
    var openAtEnd = 0
    /// Closed by the server, by close code (4008 is the slow-consumer policy).
    var closeCodes: [UInt16: Int] = [:]
    /// What their buffers held when they were finally read: frames, and the seq gaps that
    /// show conflation.
    var counts = DeliveryCounts()
    /// The frames they would have received had they kept up.
    var expectedFrames = 0
}
