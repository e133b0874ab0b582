/// The last seq delivered per device of one sequence: the `since` of a resubscribe after a
/// reconnect, the repeats to drop, and the gaps the replay shows.
struct SeqTracker: Sendable, Equatable {
    private var last: [String: UInt64] = [:]
    private var awaitingReplay: Set<String> = []
    private var gaps: [String: SeqGap] = [:]

    /// Nothing delivered yet.
    init() {}

    /// Starts a resume: returns the `since` to send (every device delivered so far, with its
    /// last seq) and watches the first location of each for a gap.
    mutating func beginResume() -> [String: UInt64] {
        awaitingReplay = Set(last.keys)
        gaps = [:]
        return last
    }

    /// Whether to deliver `location`: false for a seq at or below the last one delivered of
    /// its device. Notes a gap when it is a resumed device's first location and skips seqs.
    mutating func admit(_ location: Location) -> Bool {
        let previous = last[location.device]
        if let previous {
            guard location.seq > previous else { return false }
            if awaitingReplay.remove(location.device) != nil, location.seq > previous + 1 {
                gaps[location.device] = SeqGap(lastSeen: previous, next: location.seq)
            }
        }
        last[location.device] = location.seq
        return true
    }

    /// Ends the resume (its replay has been delivered) and returns the gaps it showed.
    mutating func finishResume() -> [String: SeqGap] {
        awaitingReplay = []
        defer { gaps = [:] }
        return gaps
    }
}
