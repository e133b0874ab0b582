import Observability
import StreamCore

extension StreamSession.Environment {
    /// A node environment around `hub`, `broker` and `metrics`, with default limits and
    /// open access, for tests that drive a scope without sockets.
    static func testing(hub: Hub, broker: any Broker, metrics: StreamMetrics) -> StreamSession.Environment {
        StreamSession.Environment(
            node: "test", hub: hub, broker: broker, metrics: metrics, logger: Logger(component: "stream"))
    }
}
