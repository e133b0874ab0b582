extension SubscriptionTarget {
    /// Whether `other` watches the same thing: a device list is compared as a set (order and
    /// repeats do not matter), an area exactly.
    public func isSame(as other: SubscriptionTarget) -> Bool {
        switch (self, other) {
        case (.devices(let devices), .devices(let others)): Set(devices) == Set(others)
        default: self == other
        }
    }
}

extension SubscribeRequest {
    /// Whether `other` asks for the same thinning and aggregation. Both are part of what a
    /// subscription is, so the same `sub` with other ones is `sub_id_reused`; a thinning field
    /// left out and 0 both mean none. `snapshot` and `since` shape only the opening and do
    /// not count.
    public func hasSameThinning(as other: SubscribeRequest) -> Bool {
        (minIntervalMs ?? 0) == (other.minIntervalMs ?? 0) && (minDistanceMeters ?? 0) == (other.minDistanceMeters ?? 0)
            && aggregate == other.aggregate
    }
}
