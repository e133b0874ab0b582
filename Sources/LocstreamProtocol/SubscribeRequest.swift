/// A validated `subscribe` op.
public struct SubscribeRequest: Sendable, Equatable {
    /// The subscription id chosen by the client, 1 to 128 characters.
    public var sub: String
    /// The devices or area to watch.
    public var target: SubscriptionTarget
    /// Whether to send the last known position of every matching device first.
    public var snapshot: Bool
    /// Device id → last seq seen, for resuming: those devices get a replay instead of a snapshot.
    public var since: [String: UInt64]
    /// At most one frame per device per this many milliseconds, the newest winning.
    public var minIntervalMs: Int?
    /// Skip an update that moved less than this many metres since the last one sent.
    public var minDistanceMeters: Double?
    /// (v1.1, areas only) Count devices per cell instead of sending their locations.
    public var aggregate: CellAggregation?

    /// Creates a request with the protocol's defaults: snapshot on, no resume, no thinning, no aggregation.
    public init(
        sub: String,
        target: SubscriptionTarget,
        snapshot: Bool = true,
        since: [String: UInt64] = [:],
        minIntervalMs: Int? = nil,
        minDistanceMeters: Double? = nil,
        aggregate: CellAggregation? = nil
    ) {
        self.sub = sub
        self.target = target
        self.snapshot = snapshot
        self.since = since
        self.minIntervalMs = minIntervalMs
        self.minDistanceMeters = minDistanceMeters
        self.aggregate = aggregate
    }
}
