import Auth
import LocstreamProtocol
import Observability

/// The metrics the stream domain keeps (PROTOCOL.md's required set, and a few more).
public struct StreamMetrics: Sendable {
    /// Live subscription tasks.
    public let subscriptions: Gauge
    /// Data frames queued to clients.
    public let framesSent: Counter
    /// Frames dropped, by reason: `conflated`, `purged_on_switch`, `slow_consumer_closed`.
    public let framesDropped: LabeledCounter
    /// Locations published.
    public let published: Counter
    /// Subscribes that replaced a running subscription.
    public let switches: Counter
    /// Error frames sent, by code.
    public let errors: LabeledCounter
    /// Connections closed with 4008 because they read too slowly.
    public let slowConsumersClosed: Counter
    /// Connections closed with 1008 for spending their error budget.
    public let errorBudgetClosed: Counter
    /// Refused tokens, by reason (`missing` when none was given where one is needed).
    public let authFailures: LabeledCounter
    /// Publishes refused whole, by `PublishRefusal.Reason`.
    public let publishRefused: LabeledCounter
    /// Seconds from the hub receiving a publication to its frame being queued.
    public let publishToSend: Histogram
    /// Seconds from a subscribe being taken up to its `subscribed` ack being queued.
    public let subscribeToAck: Histogram
    /// Devices online on this node (`PresenceTracker`).
    public let devicesOnline: Gauge

    /// Registers the metrics in `registry`.
    public init(registry: MetricsRegistry) {
        subscriptions = registry.gauge("subscriptions", help: "Live subscription tasks.")
        framesSent = registry.counter("frames_sent_total", help: "Location frames queued to clients.")
        framesDropped = registry.counter(
            "frames_dropped_total", help: "Frames dropped before reaching a client.", label: "reason",
            values: ["conflated", "purged_on_switch", "slow_consumer_closed"])
        published = registry.counter("publish_total", help: "Locations published.")
        switches = registry.counter(
            "subscription_switches_total", help: "Subscribes that replaced a running subscription.")
        errors = registry.counter(
            "errors_total", help: "Error frames and responses, by code.", label: "code",
            values: ErrorCode.allCases.map(\.rawValue))
        slowConsumersClosed = registry.counter(
            "slow_consumers_closed_total", help: "Connections closed with 4008 for reading too slowly.")
        authFailures = registry.counter(
            "auth_failures_total", help: "Refused tokens, by reason.", label: "reason",
            values: AuthError.Reason.allCases.map(\.rawValue) + ["missing"])
        publishToSend = registry.histogram(
            "publish_to_send_seconds",
            help: "Seconds from a publication reaching the hub to its subscription taking it to queue.",
            bounds: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1])
        subscribeToAck = registry.histogram(
            "subscribe_to_ack_seconds",
            help:
                "Seconds from a subscribe being taken up to its subscribed ack being queued: the broker read and the switch.",
            bounds: [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1])
        publishRefused = registry.counter(
            "publish_refused_total", help: "Publishes refused whole, by reason.", label: "reason",
            values: PublishRefusal.Reason.allCases.map(\.rawValue))
        devicesOnline = registry.gauge(
            "devices_online", help: "Devices heard from within --offline-after, as this node knows them.")
        errorBudgetClosed = registry.counter(
            "error_budget_closed_total", help: "Connections closed with 1008 for sending too many bad requests.")
    }

    /// Counts one error of `code`.
    public func count(_ code: ErrorCode) {
        errors[code.rawValue]?.increment()
    }
}
