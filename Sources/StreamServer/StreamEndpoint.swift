import StreamCore
import WebSocketTransport

/// `/v1/stream`: the location protocol. Each message goes to the connection's
/// `StreamSession`, one at a time, until the connection closes or the session closes it.
enum StreamEndpoint {
    /// Serves one stream connection until it closes; `session` has been opened
    /// (`StreamSession.open`), and is closed here at the end.
    static func serve(_ connection: WebSocketConnection, session: StreamSession) async {
        defer { session.close() }
        for await message in connection.messages {
            guard !Task.isCancelled, await session.handle(message.bytes, isBinary: message.isBinary) else { return }
        }
    }
}
