/// One WebSocket connection, as the application sees it: who it is, what it asked
/// for, its incoming messages, and a way to send.
///
/// It is a value, one reference wide, so the async frames that hold it stay small:
/// copies refer to the same connection. Sending never blocks; frames are queued and
/// written by the service thread. After the connection closes, sends are refused and
/// `messages` ends.
public struct WebSocketConnection: Sendable {
    /// Unique within the process.
    public var id: ConnectionID { channel.id }
    /// What the peer sent in its upgrade request (client side: the path asked for),
    /// handed out once: the connection then forgets it, so an open connection does not
    /// keep its headers and query (a token in them is hundreds of bytes). Later calls get
    /// an empty request.
    public func takeRequest() -> UpgradeRequest { channel.takeRequest() }
    let channel: ConnectionChannel

    /// The executor of the service thread that serves this connection. A task that only
    /// queues frames for the connection, or reads its messages, runs best there.
    public var executor: (any TaskExecutor)? { channel.executor }

    init(channel: ConnectionChannel) {
        self.channel = channel
    }

    /// The messages received, in order. Ends when the connection closes or the
    /// iterating task is cancelled.
    public var messages: InboundMessages { InboundMessages(channel: channel) }

    /// Queues a control frame (a reply, an error): always accepted while open.
    /// Returns false once the connection is closing or closed.
    @discardableResult
    public func send(_ frame: OutboundFrame) -> Bool {
        (try? channel.send(frame, generation: nil)) != nil
    }

    /// Queues a data frame of subscription `generation`. Refused, atomically under the
    /// outbox lock, when `generation` is no longer current, and when the peer is too
    /// slow for the slow-consumer policy (the connection then closes with 4008).
    @discardableResult
    public func send(_ frame: OutboundFrame, generation: UInt64) throws(SendRefusal) -> SendEffect {
        try channel.send(frame, generation: generation)
    }

    /// Makes `generation` current: drops every queued data frame of older generations
    /// and queues `ack` after them, in one critical section. Returns the purged count.
    @discardableResult
    public func advance(to generation: UInt64, ack: OutboundFrame?) -> Int {
        channel.advance(to: generation, ack: ack)
    }

    /// Bytes that data frames of `generation` may queue now without anything being
    /// dropped (0 while the peer has not read enough), or nil when that generation is no
    /// longer current or the connection is closing.
    public func room(for generation: UInt64) -> Int? {
        channel.room(for: generation)
    }

    /// Waits until the peer has read at least half the limit's worth of what is queued,
    /// `generation` is no longer current, the connection is ending or the task is cancelled.
    public func waitForRoom(for generation: UInt64) async {
        await channel.waitForRoom(for: generation)
    }

    /// Closes with `code` after writing what is queued.
    public func close(code: UInt16, reason: String = "") {
        channel.close(CloseRequest(code: code, reason: reason))
    }

    /// The close code and reason the peer sent, once it has sent a close frame.
    public var peerClose: CloseRequest? { channel.peerClose.withLock { $0 } }

    /// Bytes queued and not yet written.
    public var queuedBytes: Int { channel.outbox.withLock { $0.queuedBytes } }
}

/// The messages of one connection, as an `AsyncSequence`. Its buffer is bounded:
/// when the consumer lags, the server stops reading from the socket.
public struct InboundMessages: AsyncSequence, Sendable {
    public typealias Element = InboundMessage
    let channel: ConnectionChannel

    public func makeAsyncIterator() -> Iterator { Iterator(channel: channel) }

    /// Iterates the messages; `next()` returns nil at the end or on cancellation.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let channel: ConnectionChannel

        public mutating func next() async -> InboundMessage? {
            await channel.nextMessage()
        }

        /// Every message received and not yet taken, oldest first, waiting for one when none
        /// is there: one wake-up per batch instead of one per message. Nil at the end or on
        /// cancellation.
        public mutating func nextBatch() async -> [InboundMessage]? {
            let batch = await channel.nextMessages()
            return batch.isEmpty ? nil : batch
        }

        /// A message already received, without waiting: `.some(message)`, `.some(nil)`
        /// at the end, or nil when nothing is queued yet. For the tests (package access).
        package func nextIfReady() -> InboundMessage?? {
            channel.nextMessageIfReady()
        }
    }
}
