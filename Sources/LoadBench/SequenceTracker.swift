/// The last `seq` seen per device on one connection, and the verdict on each new one.
///
/// Per device, PROTOCOL.md promises frames in `seq` order with no duplicates; a gap means
/// updates were skipped. The tracker keys devices by `ScannedLoc.deviceKey`, so no string
/// is built per frame.
struct SequenceTracker: Sendable {
    /// What one frame's `seq` was, against the device's previous one.
    enum Verdict: Sendable, Equatable {
        /// The device's first frame here, or exactly the next seq.
        case next
        /// A jump: `skipped` seqs never arrived.
        case gap(skipped: UInt64)
        /// The same seq again.
        case duplicate
        /// Lower than one already seen.
        case outOfOrder
    }

    private var last: [UInt64: UInt64] = [:]

    /// A tracker expecting about `devices` devices.
    init(devices: Int = 1) { last.reserveCapacity(devices) }

    /// Judges `seq` for the device `key`, and remembers it unless it went backwards.
    mutating func observe(key: UInt64, seq: UInt64) -> Verdict {
        guard let previous = last[key] else {
            last[key] = seq
            return .next
        }
        if seq == previous { return .duplicate }
        if seq < previous { return .outOfOrder }
        last[key] = seq
        return seq == previous + 1 ? .next : .gap(skipped: seq - previous - 1)
    }

    /// Records the verdict on `seq` in `counts`.
    mutating func count(key: UInt64, seq: UInt64, into counts: inout DeliveryCounts) {
        switch observe(key: key, seq: seq) {
        case .next: break
        case .gap(let skipped):
            counts.seqGaps += 1
            counts.seqSkipped += Int(clamping: skipped)
        case .duplicate: counts.duplicates += 1
        case .outOfOrder: counts.outOfOrder += 1
        }
    }

    /// Forgets every device (a new subscription starts its own sequence).
    mutating func reset() { last.removeAll(keepingCapacity: true) }
}
