import Locking
import LocstreamClient

/// A transport with a scripted server behind it: the test takes each connection the client
/// opens, reads what the client sent and answers with the frames it chooses.
final class ScriptedTransport: LocstreamTransport {
    /// The connections opened, in order.
    let opened = Mailbox<ScriptedConnection>()
    private let failuresLeft: Locked<Int>
    private let batching: Bool

    /// A transport whose first `failures` connects fail; with `batching`, its connections
    /// hand the client every frame delivered so far at once (`receiveBatch`), as the lws
    /// transport does under load.
    init(failingFirst failures: Int = 0, batching: Bool = false) {
        failuresLeft = Locked(failures)
        self.batching = batching
    }

    func connect(token: String?) async throws -> any LocstreamConnection {
        let fails = failuresLeft.withLock { left in
            defer { left = max(0, left - 1) }
            return left > 0
        }
        if fails { throw ScriptedFailure.refused }
        let connection = ScriptedConnection(token: token, batching: batching)
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
    private let receivedCount = Locked(0)
    private let batching: Bool

    init(token: String?, batching: Bool = false) {
        self.token = token
        self.batching = batching
    }

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

    func receiveBatch() async -> [[UInt8]] {
        guard batching else { return await receive().map { [$0] } ?? [] }
        let frames = await inbound.nextAll()
        receivedCount.withLock { $0 += frames.count }
        return frames
    }

    func close() { inbound.end() }
}
