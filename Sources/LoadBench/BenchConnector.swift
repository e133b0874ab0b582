import WebSocketTransport

/// Opens a bench's connections: several lws clients (one service thread each), the
/// connections dealt round-robin over them and over the loopback source addresses.
struct BenchConnector: Sendable {
    private let clients: [WebSocketClient]
    private let url: String
    private let publishURL: String
    private let options: ClientConnectOptions
    /// Where connections come from.
    let sources: SourceAddresses

    /// Starts `settings.clients` lws clients.
    static func start(_ settings: BenchSettings) async throws(TransportError) -> BenchConnector {
        var clients: [WebSocketClient] = []
        for _ in 0..<settings.clients {
            do {
                clients.append(
                    try await WebSocketClient.start(
                        caFile: settings.connection.caFile, eventLoop: settings.eventLoop,
                        logger: settings.connection.transportLogger))
            } catch {
                for client in clients { await client.shutdown() }
                throw error
            }
        }
        let host = (try? WebSocketURL(settings.connection.url).host) ?? ""
        return BenchConnector(
            clients: clients, url: settings.connection.url,
            publishURL: settings.publishURL ?? settings.connection.url,
            options: settings.connection.connectOptions,
            sources: SourceAddresses(count: settings.sourceAddresses, host: host))
    }

    /// Opens connection number `index` (to the publish URL for a publisher); returns
    /// once its handshake is done.
    func connect(_ index: Int, publisher: Bool = false) async throws(TransportError) -> WebSocketConnection {
        var options = self.options
        options.sourceAddress = sources.address(for: index)
        return try await clients[index % clients.count].connect(to: publisher ? publishURL : url, options: options)
    }

    /// Closes every connection and stops the service threads.
    func shutdown() async {
        for client in clients { await client.shutdown() }
    }
}
