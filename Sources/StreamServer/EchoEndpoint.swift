import WebSocketTransport

/// `/v1/echo`: returns every message unchanged, text as text and binary as binary.
/// Enabled by `--enable-echo`; it exists for protocol conformance tests.
final class EchoEndpoint: MessageHandler {
    static let path = "/v1/echo"
    private let connection: WebSocketConnection
    private let metrics: ServerMetrics

    /// Echoes what `connection` receives.
    init(_ connection: WebSocketConnection, metrics: ServerMetrics) {
        self.connection = connection
        self.metrics = metrics
    }

    func handle(_ message: InboundMessage) async -> Bool {
        connection.send(OutboundFrame(opcode: message.isBinary ? .binary : .text, body: message.bytes))
        metrics.echoMessages.increment()
        return true
    }

    func end() {}
}
