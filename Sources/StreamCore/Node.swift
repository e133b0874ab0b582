import Observability

/// What every session on a server shares: the hub, the broker (which reports what it
/// hears to the node, and the node feeds the hub) and the ingest in front of it, the `Gatekeeper` (the access policy and its token checks), the limits, the metrics, the logger
/// and the clock with its timers. One instance per server process, built in `ServerProcess.run`; each
/// session keeps a reference, not a copy. A session is given the node; the node does
/// not know its sessions.
public final class Node: Sendable {
    /// The node's name (`--node`), sent in `welcome`.
    public let name: String
    /// The local fan-out, fed by the broker through the node's `BrokerEventHandler`.
    public let hub: Hub
    public let broker: any Broker
    public let ingest: Ingest
    public let metrics: StreamMetrics
    public let logger: Logger
    public let limits: SessionLimits
    /// The access policy and its token checks: who is this, and what may they do.
    public let gate: Gatekeeper
    public let clock: any NodeClock
    /// The connections' token timers, on `clock`.
    public let timers: TimerQueue
    /// Which devices are online (`--offline-after`).
    public let presence: PresenceTracker
    /// Paces the reads of aggregated areas, so they never monopolise the broker.
    let areaReads = AreaReadPacer()

    /// A node named `name` around `broker`, which it starts: from now on the broker
    /// reports what it hears to the node's hub, and hears which subjects the hub's
    /// clients watch when it follows interest.
    public init(
        name: String, broker: any Broker, metrics: StreamMetrics, logger: Logger,
        limits: SessionLimits = SessionLimits(), access: AccessPolicy = .open, clock: any NodeClock = SystemClock()
    ) {
        self.name = name
        let hub = Hub(grid: broker.grid, interestChanged: Self.interest(of: broker))
        self.hub = hub
        self.broker = broker
        self.ingest = Ingest(
            broker: broker, metrics: metrics,
            rateLimiter: PublishRateLimiter(rate: limits.publishRate, burst: limits.publishBurst))
        self.metrics = metrics
        self.logger = logger
        self.limits = limits
        self.gate = Gatekeeper(access: access, metrics: metrics, logger: logger, clock: clock)
        self.clock = clock
        self.timers = TimerQueue(clock: clock)
        let presence = PresenceTracker(offlineAfter: limits.offlineAfter, clock: clock, gauge: metrics.devicesOnline)
        self.presence = presence
        broker.run(reporting: HubFeed(hub: hub, presence: presence))
    }

    /// Tells the subscribers of each device that goes offline, every `presence.tick`, until
    /// the calling task is cancelled.
    public func watchPresence() async {
        while (try? await clock.sleep(for: presence.tick)) != nil {
            expirePresence()
        }
    }

    /// Sends `online:false` for each device silent past `--offline-after` now.
    public func expirePresence() {
        for last in presence.expire() { hub.deliverOffline(last) }
    }

    /// Where the hub reports a subject's first and last local subscriber: to `broker`
    /// when it follows interest (held weakly, so the broker and the hub it reports to
    /// hold no cycle), else nowhere, so the cells of a wide area are not even listed.
    private static func interest(of broker: any Broker) -> (@Sendable (Subject) -> Void)? {
        guard broker.followsInterest else { return nil }
        return { [weak broker] subject in broker?.interestChanged(subject) }
    }
}
