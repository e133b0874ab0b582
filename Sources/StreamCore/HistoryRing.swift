import LocstreamProtocol

/// The newest `capacity` updates of one device, oldest first: the history a resuming
/// subscriber replays from. Appending past capacity forgets the oldest.
struct HistoryRing {
    private var storage: [EncodedLocation] = []
    private var start = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = max(capacity, 0) }

    /// Adds the newest update.
    mutating func append(_ update: EncodedLocation) {
        guard capacity > 0 else { return }
        if storage.count < capacity {
            storage.append(update)
        } else {
            storage[start] = update
            start = (start + 1) % capacity
        }
    }

    /// Updates with a seq above `seq`, oldest first.
    func updates(after seq: UInt64) -> [EncodedLocation] {
        let ordered = storage[start...] + storage[..<start]
        return ordered.filter { $0.location.seq > seq }
    }
}
