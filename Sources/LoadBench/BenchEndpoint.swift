import Observability
import WebSocketTransport

/// Where a bench connects and how: the server's stream URL, the CA file trusted for
/// `wss://`, the upgrade's options (sub-protocol, token, TLS, timeout) and the logger
/// handed to the transport.
public struct BenchEndpoint: Sendable {
    /// The server's stream URL.
    public var url: String
    /// A PEM bundle trusted for `wss://`, beside the system's.
    public var caFile: String?
    /// The options every connection's upgrade uses.
    public var connectOptions: ClientConnectOptions
    /// The logger for libwebsockets' own messages.
    public var transportLogger: Logger

    /// How long connecting may take; the runs also wait this long for replies.
    var timeout: Duration { connectOptions.timeout }

    /// An endpoint from its parts.
    public init(url: String, caFile: String?, connectOptions: ClientConnectOptions, transportLogger: Logger) {
        self.url = url
        self.caFile = caFile
        self.connectOptions = connectOptions
        self.transportLogger = transportLogger
    }
}
