/// The last `seq` seen per device in the current subscription: the `since` of a resubscribe
/// after a reconnect, so the server replays exactly what was missed.
///
/// At most `limit` devices are kept in `since` (the most recently heard from), so the
/// resubscribe of a busy area subscription stays well inside the server's message limit.
struct ResumePoints: Sendable, Equatable {
    private var entries: [String: Entry] = [:]
    private var clock: UInt64 = 0
    /// The most devices `since` lists.
    var limit = 1000

    /// A device's last seq, and when it was heard (a tick of `clock`).
    private struct Entry: Sendable, Equatable {
        var seq: UInt64
        var heard: UInt64
    }

    /// No devices yet.
    init(limit: Int = 1000) { self.limit = limit }

    /// Notes that `device` reached `seq`; returns the seq seen before, if any. A seq that does
    /// not advance (a protocol violation) is not recorded.
    @discardableResult
    mutating func record(device: String, seq: UInt64) -> UInt64? {
        clock += 1
        let previous = entries[device]?.seq
        if let previous, seq <= previous { return previous }
        entries[device] = Entry(seq: seq, heard: clock)
        return previous
    }

    /// The last seq seen of `device`.
    func seq(of device: String) -> UInt64? { entries[device]?.seq }

    /// How many devices have been seen.
    var count: Int { entries.count }

    /// The `since` object for a resubscribe: device → last seq seen, for at most `limit` devices.
    var since: [String: UInt64] { since(atMost: limit) }

    /// The `since` object for the `count` devices heard from most recently.
    func since(atMost count: Int) -> [String: UInt64] {
        let kept =
            entries.count <= count
            ? Array(entries) : Array(entries.sorted { $0.value.heard > $1.value.heard }.prefix(max(0, count)))
        return Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value.seq) })
    }

    /// Forgets every device (a switch to a new subscription).
    mutating func reset() {
        entries = [:]
    }
}
