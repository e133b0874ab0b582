import Observability

/// The metrics `stream-server` exposes at `/metrics` (PROTOCOL.md lists the required ones).
struct ServerMetrics: Sendable {
    let registry = MetricsRegistry()
    let connections: Gauge
    let connectionsOpened: Counter
    let echoMessages: Counter

    init() {
        connections = registry.gauge("connections", help: "Open WebSocket connections.")
        connectionsOpened = registry.counter("connections_opened_total", help: "WebSocket connections accepted.")
        echoMessages = registry.counter("echo_messages_total", help: "Messages returned by /v1/echo.")
    }
}
