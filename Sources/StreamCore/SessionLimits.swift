/// What one connection, or one publishing identity, may do: the client limits of a node.
public struct SessionLimits: Sendable {
    /// The most devices in one `subscribe` (the protocol allows 1000 at most).
    public var maxSubscribeDevices = 1000
    /// Locations per second one identity (`PublishIdentity`) may publish, on average.
    public var publishRate = 1000.0
    /// Locations one identity may publish in a burst.
    public var publishBurst = 2000.0
    /// Bad requests a connection may send in a burst before it is closed with 1008;
    /// the budget refills at one per second.
    public var errorBudget = 20.0
    /// The largest area an area subscription may cover, in square kilometres; larger is
    /// `bad_request`. The default is about a 500 × 500 km region.
    public var maxAreaKm2 = 250_000.0
    /// The most cells an aggregated area subscription may cover (`--max-cells`), which bounds
    /// the size of its `cells` frames; a finer `cell_deg` for the area is `bad_request`.
    public var maxCells = 10_000
    /// How long a viewer may read nothing of a subscription's opening that waits for room
    /// before it is closed with 4008 (`--snapshot-stall-timeout`): an opening is never
    /// conflated, so what it holds must not wait for a peer that stopped reading.
    public var snapshotStallTimeout = Duration.seconds(30)
    /// How long a device may be silent and still be online (`--offline-after`).
    public var offlineAfter = Duration.seconds(120)

    /// The defaults.
    public init() {}
}
