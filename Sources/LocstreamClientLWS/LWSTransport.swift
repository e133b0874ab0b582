import LocstreamClient
import WebSocketTransport

/// The libwebsockets transport: connections opened by a `WebSocketClient` (the one
/// `stream-client` and the tests use), for Linux and servers.
public struct LWSTransport: LocstreamTransport {
    private let client: WebSocketClient
    private let url: String
    private let options: ClientConnectOptions

    /// Connections to `url` (`ws://` or `wss://`, path `/v1/stream`) through `client`, with
    /// `options` (TLS trust, timeouts); the token, when there is one, is added to its headers.
    public init(client: WebSocketClient, url: String, options: ClientConnectOptions = ClientConnectOptions()) {
        self.client = client
        self.url = url
        self.options = options
    }

    /// Opens one connection; returns after the WebSocket handshake.
    public func connect(token: String?) async throws -> any LocstreamConnection {
        var options = self.options
        if let token { options.headers.append(("Authorization", "Bearer \(token)")) }
        return LWSConnection(connection: try await client.connect(to: url, options: options))
    }
}

/// A `WebSocketConnection` seen as a `LocstreamConnection`.
struct LWSConnection: LocstreamConnection {
    let connection: WebSocketConnection

    func send(_ text: [UInt8]) {
        connection.send(OutboundFrame(body: text))
    }

    func receive() async -> [UInt8]? {
        // An iterator of `messages` holds only the connection: a fresh one reads on where the
        // last one stopped.
        var messages = connection.messages.makeAsyncIterator()
        return await messages.next()?.bytes
    }

    func receiveBatch() async -> [[UInt8]] {
        var messages = connection.messages.makeAsyncIterator()
        guard let batch = await messages.nextBatch() else { return [] }
        return batch.map(\.bytes)
    }

    func close() {
        connection.close(code: 1000)
    }

    var closeCode: UInt16? { connection.peerClose?.code }
}
