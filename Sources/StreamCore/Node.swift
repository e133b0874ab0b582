import Observability

/// What every session on a server shares: the hub, the broker and the ingest in front
/// of it, the `Gatekeeper` (the access policy and its token checks), the limits, the metrics, the logger
/// and the clock. One instance per server process, built in `ServerProcess.run`; each
/// session keeps a reference, not a copy. A session is given the node; the node does
/// not know its sessions.
public final class Node: Sendable {
    /// The node's name (`--node`), sent in `welcome`.
    public let name: String
    public let hub: Hub
    public let broker: any Broker
    public let ingest: Ingest
    public let metrics: StreamMetrics
    public let logger: Logger
    public let limits: SessionLimits
    /// The access policy and its token checks: who is this, and what may they do.
    public let gate: Gatekeeper
    public let clock: any NodeClock

    /// A node named `name` around `hub` and `broker`.
    public init(
        name: String, hub: Hub, broker: any Broker, metrics: StreamMetrics, logger: Logger,
        limits: SessionLimits = SessionLimits(), access: AccessPolicy = .open, clock: any NodeClock = SystemClock()
    ) {
        self.name = name
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
    }
}
