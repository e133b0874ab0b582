/// The options of a subscription, as the protocol has them.
public struct SubscriptionOptions: Sendable, Equatable {
    /// Send the last known position of every matching device first (the default).
    public var snapshot = true
    /// At most one location per device per this interval, the newest winning.
    public var minInterval: Duration?
    /// Skip a location that moved less than this many metres since the last one sent.
    public var minDistanceMeters: Double?

    /// Snapshot on, no thinning, unless given.
    public init(snapshot: Bool = true, minInterval: Duration? = nil, minDistanceMeters: Double? = nil) {
        self.snapshot = snapshot
        self.minInterval = minInterval
        self.minDistanceMeters = minDistanceMeters
    }

    /// The `subscribe` request for `target` under the id `sub`.
    func request(sub: String, target: SubscriptionTarget) -> SubscribeRequest {
        SubscribeRequest(
            sub: sub, target: target, snapshot: snapshot,
            minIntervalMs: minInterval.map { Int($0 / .milliseconds(1)) }, minDistanceMeters: minDistanceMeters)
    }
}
