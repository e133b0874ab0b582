import StreamCore
import WebSocketTransport

/// `/v1/stream`: the location protocol. Each message goes to the connection's
/// `StreamSession`, one at a time, until the connection closes or the session closes it.
enum StreamEndpoint {
    /// Serves one stream connection until it closes. `upgradeToken` is the token sent
    /// with the upgrade, if any.
    static func serve(_ connection: WebSocketConnection, session: StreamSession, upgradeToken: String?) async {
        defer { session.close() }
        guard session.open(upgradeToken: upgradeToken) else { return }
        for await message in connection.messages {
            guard !Task.isCancelled, await session.handle(message.bytes, isBinary: message.isBinary) else { return }
        }
    }
}
