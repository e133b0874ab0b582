import LocstreamProtocol

/// The newest updates of one device, oldest first: its last known position and the
/// history a resuming subscriber replays from. Appending past `capacity` forgets the
/// oldest. It is the whole of what the embedded broker keeps per device (the seq is the
/// newest update's), so it is kept small: the capacity is passed in, not stored.
struct HistoryRing {
    private var storage: [EncodedLocation]
    private var start: UInt32 = 0

    /// A ring holding `first`.
    init(first: EncodedLocation) { storage = [first] }

    /// The newest update: the device's last known position and current seq.
    var newest: EncodedLocation {
        storage[(Int(start) + storage.count - 1) % storage.count]
    }

    /// The oldest update kept.
    var oldest: EncodedLocation { storage[Int(start)] }

    /// How many updates it keeps.
    var count: Int { storage.count }

    /// Adds the newest update, keeping at most `capacity` (and always the newest).
    mutating func append(_ update: EncodedLocation, capacity: Int) {
        if storage.count < max(capacity, 1) {
            storage.append(update)
        } else {
            storage[Int(start)] = update
            start = UInt32((Int(start) + 1) % storage.count)
        }
    }

    /// Updates with a seq above `seq`, oldest first; none when `capacity` is 0 (the
    /// newest is kept as the last known position, not as history).
    func updates(after seq: UInt64, capacity: Int) -> [EncodedLocation] {
        guard capacity > 0 else { return [] }
        let ordered = storage[Int(start)...] + storage[..<Int(start)]
        return ordered.filter { $0.location.seq > seq }
    }
}
