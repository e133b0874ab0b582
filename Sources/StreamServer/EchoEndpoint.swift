import WebSocketTransport

/// `/v1/echo`: returns every message unchanged, text as text and binary as binary.
/// Enabled by `--enable-echo`; it exists for protocol conformance tests.
enum EchoEndpoint {
    static let path = "/v1/echo"

    /// Serves one echo connection until it closes.
    static func serve(_ connection: WebSocketConnection, metrics: ServerMetrics) async {
        for await message in connection.messages {
            connection.send(OutboundFrame(opcode: message.isBinary ? .binary : .text, body: message.bytes))
            metrics.echoMessages.increment()
        }
    }
}
