import StreamCore
import WebSocketTransport

/// `/v1/stream`: the location protocol. Each message goes to the connection's
/// `StreamSession`, one at a time, until the connection closes or the session closes it.
final class StreamEndpoint: MessageHandler {
    private let session: StreamSession

    /// Serves a session that has been opened (`StreamSession.open`); it is closed in `end`.
    init(session: StreamSession) {
        self.session = session
    }

    func handle(_ message: InboundMessage) async -> Bool {
        await session.handle(message.bytes, isBinary: message.isBinary)
    }

    func end() {
        session.close()
    }

    var answerPriority: TaskPriority { session.answerPriority }
}
