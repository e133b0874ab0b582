import LocstreamClient
import Synchronization

/// A transport with a scripted server behind it: the test takes each connection the client
/// opens, reads what the client sent and answers with the frames it chooses.
final class ScriptedTransport: LocstreamTransport {
    /// The connections opened, in order.
    let opened = Mailbox<ScriptedConnection>()
    private let failuresLeft: Mutex<Int>

    /// A transport whose first `failures` connects fail.
    init(failingFirst failures: Int = 0) {
        failuresLeft = Mutex(failures)
    }

    func connect(token: String?) async throws -> any LocstreamConnection {
        let fails = failuresLeft.withLock { left in
            defer { left = max(0, left - 1) }
            return left > 0
        }
        if fails { throw ScriptedFailure.refused }
        let connection = ScriptedConnection(token: token)
        opened.post(connection)
        return connection
    }

    /// Why a scripted connect failed.
    enum ScriptedFailure: Error { case refused }
}

/// One scripted connection: what the client sends is decoded into `sent`; `deliver` plays
/// the server.
final class ScriptedConnection: LocstreamConnection {
    /// The token the connection was opened with.
    let token: String?
    /// Every message the client sent, decoded.
    let sent = Mailbox<ClientMessage>()
    private let inbound = Mailbox<[UInt8]>()
    private let receivedCount = Mutex(0)

    init(token: String?) { self.token = token }

    /// Sends `message` to the client as the server would.
    func deliver(_ message: ServerMessage) { inbound.post(message.encoded()) }

    /// Sends a frame of `bytes` to the client.
    func deliver(bytes: [UInt8]) { inbound.post(bytes) }

    /// Ends the connection from the server's side (a network fault).
    func drop() { inbound.end() }

    /// The next message the client sent.
    func nextSent() async -> ClientMessage? { await sent.next() }

    func send(_ text: [UInt8]) {
        if let message = try? ClientMessage.decode(text) { sent.post(message) }
    }

    /// How many frames the client has read so far.
    var received: Int { receivedCount.withLock { $0 } }

    func receive() async -> [UInt8]? {
        let frame = await inbound.next()
        if frame != nil { receivedCount.withLock { $0 += 1 } }
        return frame
    }

    func close() { inbound.end() }
}
