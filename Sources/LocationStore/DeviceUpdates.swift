import LocstreamProtocol

/// One device's updates in a group commit: what becomes its history chunk and its row.
struct DeviceUpdates {
    /// The updates, in the order they were queued.
    private(set) var updates: [EncodedLocation] = []
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
            updates.append(update)
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
        let kept = updates.sorted { $0.location.seq < $1.location.seq }.suffix(limit)
        var bodies: [UInt8] = []
        bodies.reserveCapacity(kept.reduce(0) { $0 + $1.body.count + 1 })
        for update in kept {
            bodies += update.body
            bodies.append(UInt8(ascii: "\n"))
        }
        return (bodies, kept.last?.location.seq ?? 0, kept.count)
    }
}
