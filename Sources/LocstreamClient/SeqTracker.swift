/// The last seq delivered per device of one sequence: the `since` of a resubscribe after a
/// reconnect, the repeats to drop, and the gaps the replay shows. The one place that keeps
/// it: `stream-client subscribe` reads the previous seq it shows from here too.
struct SeqTracker: Sendable {
    /// The most devices a `since` names: those heard from most recently. With the byte bound
    /// of `resume`, it keeps the resubscribe of a busy area inside the server's message size;
    /// a device left out gets its snapshot instead of a replay.
    let limit: Int
    private var last: [String: (seq: UInt64, heard: UInt64)] = [:]
    private var clock: UInt64 = 0
    private var awaitingReplay: Set<String> = []
    /// The devices of the last `since` not heard from since: the first location of each shows
    /// whether the server's seqs started again.
    private var unheardSinceResume: Set<String> = []
    private var gaps: [String: SeqGap] = [:]
    /// The seq delivered before of the device of the location `admit` last let through.
    private(set) var previousOfAdmitted: UInt64?

    /// Nothing delivered yet.
    init(limit: Int = ProtocolLimits.maxDevicesPerSubscribe) { self.limit = limit }

    /// Starts a resume of `request`: returns it with `since` (the devices delivered so far,
    /// with their last seqs: at most `limit` of them, those heard from last, and fewer while
    /// the frame would be larger than `maxBytes`) and watches the first location of each for
    /// a gap.
    mutating func resume(_ request: SubscribeRequest, maxBytes: Int) -> SubscribeRequest {
        var request = request
        var count = min(limit, last.count)
        request.since = since(atMost: count)
        while count > 0, ClientMessage.subscribe(request).encoded().count > maxBytes {
            count /= 2
            request.since = since(atMost: count)
        }
        awaitingReplay = Set(request.since.keys)
        unheardSinceResume = awaitingReplay
        gaps = [:]
        return request
    }

    private func since(atMost count: Int) -> [String: UInt64] {
        let kept =
            last.count <= count ? Array(last) : Array(last.sorted { $0.value.heard > $1.value.heard }.prefix(count))
        return Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value.seq) })
    }

    /// Whether to deliver `location`: false for a seq at or below the last one delivered of
    /// its device. Notes a gap when it is a resumed device's first location and skips seqs.
    /// After a resume the server sends nothing at or below `since` unless its seqs started
    /// again (it lost its data, as `--store memory` does on a restart): a resumed device's
    /// first location since, replayed or live, below its `since` is delivered, and the device
    /// counts on from it.
    mutating func admit(_ location: Location) -> Bool {
        let previous = last[location.device]?.seq
        if let previous {
            // Outside a resume both sets are empty: skip hashing the id into them.
            let replayed = !awaitingReplay.isEmpty && awaitingReplay.remove(location.device) != nil
            let firstSinceResume = !unheardSinceResume.isEmpty && unheardSinceResume.remove(location.device) != nil
            if location.seq <= previous {
                guard firstSinceResume, location.seq < previous else { return false }
            } else if replayed, location.seq > previous + 1 {
                gaps[location.device] = SeqGap(lastSeen: previous, next: location.seq)
            }
        }
        clock += 1
        last[location.device] = (location.seq, clock)
        previousOfAdmitted = previous
        return true
    }

    /// Ends the resume (its replay has been delivered) and returns the gaps it showed.
    mutating func finishResume() -> [String: SeqGap] {
        awaitingReplay = []
        defer { gaps = [:] }
        return gaps
    }
}
