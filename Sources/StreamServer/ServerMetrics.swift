import BuildInfo
import Observability

/// The metrics `stream-server` exposes at `/metrics` (PROTOCOL.md lists the required ones).
struct ServerMetrics: Sendable {
    let registry = MetricsRegistry()
    let connectionsOpened: Counter
    let echoMessages: Counter
    /// Requests our routes answered with a client error (4xx), by status.
    let routeRefusals: LabeledCounter
    /// The statuses `routeRefusals` counts.
    static let refusalStatuses = [400, 401, 403, 404, 405, 413, 426]

    init() {
        connectionsOpened = registry.counter("connections_opened_total", help: "WebSocket connections accepted.")
        echoMessages = registry.counter("echo_messages_total", help: "Messages returned by /v1/echo.")
        routeRefusals = registry.counter(
            "http_route_refusals_total", help: "HTTP requests and upgrades the routes refused (4xx), by status.",
            label: "status", values: Self.refusalStatuses.map(String.init))
        registry.info(
            "build_info", help: "The version, git commit and Swift compiler of this build (always 1).",
            labels: [("version", BuildInfo.version), ("commit", BuildInfo.commit), ("swift", BuildInfo.swift)])
        registry.collector(ProcessMetrics.render)
    }
}
