import Observability
import StreamCore

extension Node {
    /// A node around `broker` and `metrics`, with default limits, open access and the
    /// system clock, for tests that drive a scope without sockets.
    static func testing(broker: any Broker, metrics: StreamMetrics) -> Node {
        Node(name: "test", broker: broker, metrics: metrics, logger: Logger(component: "stream"))
    }
}
