import LocstreamClient
import LocstreamClientLWS
import Observability
import WebSocketTransport

/// Opens the connections a subcommand talks over, with the common options applied: one
/// lws client, the URL, the token, TLS trust and the connect timeout.
struct Connector: Sendable {
    /// The settings every connection uses.
    let settings: ConnectionSettings
    private let client: WebSocketClient
    private let logger: Logger

    private init(settings: ConnectionSettings, client: WebSocketClient) {
        self.settings = settings
        self.client = client
        logger = settings.logger
    }

    /// Starts the client's service thread.
    static func start(_ settings: ConnectionSettings) async throws(TransportError) -> Connector {
        let client = try await WebSocketClient.start(caFile: settings.caFile, logger: settings.transportLogger)
        return Connector(settings: settings, client: client)
    }

    /// Opens one connection to the server; returns once the WebSocket handshake is done.
    func connect() async throws(TransportError) -> WebSocketConnection {
        logger.debug("connecting", ["url": settings.url, "token": settings.token == nil ? "no" : "yes"])
        let connection = try await client.connect(to: settings.url, options: settings.connectOptions)
        logger.debug("connected", ["url": settings.url, "connection": connection.id])
        return connection
    }

    /// A `LocstreamClient` on this connector's lws client, with the same URL, token, TLS
    /// trust and connect timeout.
    func locstreamClient() -> LocstreamClient {
        LocstreamClient(transport: LWSTransport(client: client, url: settings.url, options: settings.connectOptions))
    }

    /// Closes every connection and stops the service thread.
    func shutdown() async {
        await client.shutdown()
    }

    /// Closes `connection` with 1000 and waits, at most `patience`, for the server's close
    /// (the end of `messages`), so what was queued is written first. Only call this when no
    /// other task reads the connection's messages.
    static func closeGracefully(_ connection: WebSocketConnection, patience: Duration = .seconds(2)) async {
        connection.close(code: 1000)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in connection.messages {}
            }
            group.addTask { try? await Task.sleep(for: patience) }
            await group.next()
            group.cancelAll()
        }
    }
}
