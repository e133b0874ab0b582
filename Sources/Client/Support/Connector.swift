import LocstreamClient
import LocstreamClientLWS
import Observability
import WebSocketTransport

/// The lws client a subcommand talks over, and `LocstreamClient`s on it with the common
/// options applied: the URL, the token, TLS trust and the connect timeout.
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

    /// A `LocstreamClient` on this connector's lws client, with the same URL, token (sent on
    /// every upgrade), TLS trust and connect timeout; with `--verbose` it logs its connects
    /// and closes.
    func locstreamClient(configuration: ClientConfiguration = ClientConfiguration()) -> LocstreamClient {
        var configuration = configuration
        let (logger, url, observer) = (logger, settings.url, configuration.observer)
        configuration.observer = { event in
            switch event {
            case .received(_, .welcome(let conn, let node)?):
                logger.debug("connected", ["url": url, "conn": conn, "node": node])
            case .closed(let code):
                logger.debug("connection closed", ["url": url, "code": code.map { "\($0)" } ?? "none"])
            case .connectFailed(let error):
                logger.debug("connect failed", ["url": url, "error": "\(error)"])
            case .received:
                break
            }
            observer?(event)
        }
        return LocstreamClient(
            transport: LWSTransport(client: client, url: settings.url, options: settings.connectOptions),
            configuration: configuration)
    }

    /// Closes every connection and stops the service thread.
    func shutdown() async {
        await client.shutdown()
    }
}
