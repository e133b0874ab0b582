import LocstreamProtocol

/// One device's updates in a group commit: what becomes its history chunk and its row.
///
/// History needs only each update's seq and encoded body, so that is all it keeps of
/// them (16 bytes an update, not a whole `EncodedLocation`, which a commit of 100,000
/// updates would otherwise copy, grow and sort field by field); the newest is kept whole.
struct DeviceUpdates {
    /// The updates' seqs and bodies, in the order they were queued.
    private var entries: [(seq: UInt64, body: [UInt8])] = []
    /// True while the entries are in ascending seq order (the usual case: no sort needed).
    private var isInOrder = true
    /// The update with the highest seq: the device's row.
    private(set) var newest: EncodedLocation?
    /// When the newest was heard, in milliseconds since 1970.
    private(set) var heardMillis: Int64 = 0
    /// True when a seq reached a multiple of `historySize`: the device's older chunks are due a trim.
    private(set) var reachedTrim = false

    /// Adds `update`, heard at `heardMillis`, for a store keeping `historySize` updates per device.
    mutating func add(_ update: EncodedLocation, heardMillis: Int64, historySize: Int) {
        let seq = update.location.seq
        if historySize > 0 {
            isInOrder = isInOrder && (entries.last.map { $0.seq < seq } ?? true)
            entries.append((seq, update.body))
            reachedTrim = reachedTrim || seq % UInt64(historySize) == 0
        }
        if newest.map({ $0.location.seq < seq }) ?? true {
            newest = update
            self.heardMillis = heardMillis
        }
    }

    /// The history chunk: the newest `limit` updates by seq, oldest first, each body
    /// followed by a newline; its newest seq and how many it holds.
    func chunk(keeping limit: Int) -> (bodies: [UInt8], lastSeq: UInt64, count: Int) {
        let kept = (isInOrder ? entries : entries.sorted { $0.seq < $1.seq }).suffix(limit)
        var bodies: [UInt8] = []
        bodies.reserveCapacity(kept.reduce(0) { $0 + $1.body.count + 1 })
        for entry in kept {
            bodies += entry.body
            bodies.append(UInt8(ascii: "\n"))
        }
        return (bodies, kept.last?.seq ?? 0, kept.count)
    }
}
