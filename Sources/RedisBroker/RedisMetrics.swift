import Observability

/// What the Redis broker counts, beside `broker_up`.
struct RedisMetrics: Sendable {
    /// Broker operations that failed (Redis unreachable, slow, full or refusing).
    let errors: Counter
    /// Connections opened by either link, the first ones included.
    let connects: Counter
    /// Updates of watched devices this node never received (seq gaps on their channels).
    let missedUpdates: Counter
    /// Times Redis was found to have lost its data (a new epoch).
    let stateResets: Counter
    /// Channel subscriptions the node holds now.
    let channels: Gauge
    /// Channel subscriptions taken.
    let subscribes: Counter
    /// Channel subscriptions dropped.
    let unsubscribes: Counter

    /// Registers the metrics in `registry`.
    init(registry: MetricsRegistry) {
        errors = registry.counter("broker_errors_total", help: "Broker operations that failed.")
        connects = registry.counter(
            "broker_connects_total", help: "Redis link connections opened, the first ones included.")
        missedUpdates = registry.counter(
            "broker_missed_updates_total", help: "Updates of watched devices never received from Redis (seq gaps).")
        stateResets = registry.counter(
            "broker_state_resets_total", help: "Times Redis came back without its data (a new epoch).")
        channels = registry.gauge("broker_channels", help: "Redis channel subscriptions held by this node.")
        subscribes = registry.counter("broker_subscribes_total", help: "Redis channel subscriptions taken.")
        unsubscribes = registry.counter("broker_unsubscribes_total", help: "Redis channel subscriptions dropped.")
    }
}
