import Observability
import WebSocketTransport

/// The transport's metrics: frames per corked write (the outbox depth at write time)
/// connections closed by close code, each close also logged, and HTTP requests and
/// upgrades the transport refused, by reason (the transport logs those).
struct TransportMetrics: TransportObserver {
    static let closeCodes: [UInt16] = [1000, 1001, 1002, 1006, 1007, 1008, 1009, 1011, 4008]

    let framesPerWrite: Histogram
    let closed: LabeledCounter
    let refused: LabeledCounter
    let logger: Logger
    let names: ConnectionNames

    init(registry: MetricsRegistry, logger: Logger, names: ConnectionNames) {
        self.logger = logger
        self.names = names
        framesPerWrite = registry.histogram(
            "outbox_frames_per_write", help: "Frames queued for a connection and sent in one write.",
            bounds: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512])
        closed = registry.counter(
            "connections_closed_total",
            help: "WebSocket connections closed, by close code (other: any code not listed).",
            label: "code", values: Self.closeCodes.map(String.init) + ["other"])
        refused = registry.counter(
            "http_rejected_total", help: "HTTP requests and upgrades refused before routing, by reason.",
            label: "reason", values: RequestRefusal.Reason.allCases.map(\.rawValue))
    }

    func batchWritten(frames: Int, bytes: Int) {
        framesPerWrite.observe(Double(frames))
    }

    func requestRefused(reason: String) {
        refused[reason]?.increment()
    }

    func connectionClosed(id: ConnectionID, remoteAddress: String, code: UInt16) {
        (closed[String(code)] ?? closed["other"])?.increment()
        logger.info("connection closed", ["conn": names.name(id), "peer": remoteAddress, "code": code])
    }
}
