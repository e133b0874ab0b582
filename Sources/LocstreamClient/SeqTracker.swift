/// The last seq delivered per device of one sequence: the `since` of a resubscribe after a
/// reconnect, the repeats to drop, and the gaps the replay shows.
struct SeqTracker: Sendable {
    /// The most devices a `since` names: those heard from most recently. It keeps the
    /// resubscribe of a busy area well inside the server's message size; a device left out
    /// gets its snapshot instead of a replay.
    let limit: Int
    private var last: [String: (seq: UInt64, heard: UInt64)] = [:]
    private var clock: UInt64 = 0
    private var awaitingReplay: Set<String> = []
    private var gaps: [String: SeqGap] = [:]

    /// Nothing delivered yet.
    init(limit: Int = ProtocolLimits.maxDevicesPerSubscribe) { self.limit = limit }

    /// Starts a resume: returns the `since` to send (the devices delivered so far, with their
    /// last seqs, at most `limit` of them) and watches the first location of each for a gap.
    mutating func beginResume() -> [String: UInt64] {
        let kept =
            last.count <= limit ? Array(last) : Array(last.sorted { $0.value.heard > $1.value.heard }.prefix(limit))
        let since = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value.seq) })
        awaitingReplay = Set(since.keys)
        gaps = [:]
        return since
    }

    /// Whether to deliver `location`: false for a seq at or below the last one delivered of
    /// its device. Notes a gap when it is a resumed device's first location and skips seqs.
    mutating func admit(_ location: Location) -> Bool {
        let previous = last[location.device]?.seq
        if let previous {
            guard location.seq > previous else { return false }
            if awaitingReplay.remove(location.device) != nil, location.seq > previous + 1 {
                gaps[location.device] = SeqGap(lastSeen: previous, next: location.seq)
            }
        }
        clock += 1
        last[location.device] = (location.seq, clock)
        return true
    }

    /// Ends the resume (its replay has been delivered) and returns the gaps it showed.
    mutating func finishResume() -> [String: SeqGap] {
        awaitingReplay = []
        defer { gaps = [:] }
        return gaps
    }
}
