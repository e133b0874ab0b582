/// What a location sequence reports, in the order it happened.
public enum LocationUpdate: Sendable, Equatable {
    /// A device's position (a snapshot, a replayed or a live one).
    case location(Location)
    /// (Area subscriptions) the device left the area.
    case left(device: String)
    /// Every snapshot frame has been delivered; what follows is live.
    case snapshotEnd
    /// The connection was lost (or could not be opened); attempt `attempt` to connect again
    /// starts after `delay`.
    case reconnecting(attempt: Int, delay: Duration)
    /// The subscription is live again after a reconnect and what was missed has been
    /// replayed. `gaps` names each device whose replay skipped seqs (history no longer
    /// reached back far enough); empty when nothing was lost.
    case resumed(gaps: [String: SeqGap])

    /// The location, when this update is one.
    public var location: Location? {
        if case .location(let location) = self { location } else { nil }
    }
}

/// Seqs of one device that were never delivered: everything after `lastSeen` and before `next`.
public struct SeqGap: Sendable, Equatable {
    /// The last seq delivered before the gap.
    public var lastSeen: UInt64
    /// The first seq delivered after it.
    public var next: UInt64

    /// The gap between `lastSeen` and `next`.
    public init(lastSeen: UInt64, next: UInt64) {
        self.lastSeen = lastSeen
        self.next = next
    }

    /// Whether `seq` lies in the gap.
    public func contains(_ seq: UInt64) -> Bool { seq > lastSeen && seq < next }
}
