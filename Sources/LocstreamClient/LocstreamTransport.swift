/// Opens WebSocket connections to one locstream server (`/v1/stream`, sub-protocol
/// `locstream.v1`). `LocstreamClient` is written against this, so an app picks the
/// implementation: `URLSessionTransport`, or the libwebsockets one in `LocstreamClientLWS`.
public protocol LocstreamTransport: Sendable {
    /// Opens one connection, sending `token` (when given) as `Authorization: Bearer …` on the
    /// upgrade; returns once the WebSocket is open.
    func connect(token: String?) async throws -> any LocstreamConnection
}

/// One open WebSocket connection, as a transport hands it out.
public protocol LocstreamConnection: Sendable {
    /// Queues one text frame without waiting; frames are written in the order they were queued.
    /// A frame queued after the connection ended is dropped.
    func send(_ text: [UInt8])

    /// The next message received; nil once the connection has ended, for whatever reason.
    /// Only one task reads a connection.
    func receive() async -> [UInt8]?

    /// Every message received and not yet read, oldest first, waiting for one when none is
    /// there; empty once the connection has ended. A transport that queues what it reads
    /// hands over the whole queue, so a busy connection costs one wake-up of its reader per
    /// batch rather than per message. Only one task reads a connection.
    func receiveBatch() async -> [[UInt8]]

    /// Closes the connection normally (1000); `receive` then returns nil.
    func close()

    /// The close code the server sent, once the connection has ended; nil when none came.
    var closeCode: UInt16? { get }
}

extension LocstreamConnection {
    /// One message at a time: `receive()`, as a batch of one.
    public func receiveBatch() async -> [[UInt8]] {
        guard let message = await receive() else { return [] }
        return [message]
    }

    /// Unknown: a transport that cannot tell.
    public var closeCode: UInt16? { nil }
}
