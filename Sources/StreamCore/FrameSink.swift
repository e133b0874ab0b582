/// What became of a data frame handed to a `FrameSink`.
public enum SinkOutcome: Sendable, Equatable {
    /// Queued for writing.
    case queued
    /// Queued; `dropped` older queued frames were dropped to make room (slow peer): the
    /// same device's, then the oldest.
    case conflated(dropped: Int)
    /// Refused: the generation is stale or the connection is closing. Stop sending.
    case stopped
    /// Refused: the peer is too slow and the connection is closing with 4008;
    /// `dropped` queued frames were discarded. Stop sending.
    case slowConsumerClosed(dropped: Int)
}

extension SinkOutcome {
    /// Whether the frame was queued (conflated or not).
    var isQueued: Bool {
        switch self {
        case .queued, .conflated: true
        case .stopped, .slowConsumerClosed: false
        }
    }
}

/// Where a connection's frames go: the small surface the domain needs from a
/// connection, so that scopes and sessions can be tested without a socket.
///
/// Data frames carry a subscription *generation*. The sink accepts one only while its
/// generation is current, checked under the sink's own lock; `advance` makes a new
/// generation current, purges queued frames of older ones and queues the
/// acknowledgement, all at once. That is what makes a stale frame after a switch
/// impossible, not merely unlikely.
public protocol FrameSink: Sendable {
    /// Queues a control frame (a reply, an error). False once the connection is closing.
    @discardableResult
    func sendControl(_ frame: [UInt8]) -> Bool

    /// Queues the data frame `head + body` of `generation`; `key` (the device) lets a
    /// newer frame replace a queued older one when the peer is slow.
    func send(head: [UInt8], body: [UInt8], key: String, generation: UInt64) -> SinkOutcome

    /// Makes `generation` current, drops queued data frames of older generations, then
    /// queues `ack`. Returns the number of frames dropped.
    @discardableResult
    func advance(to generation: UInt64, ack: [UInt8]) -> Int

    /// Closes the connection with `code` once what is queued is written.
    func close(code: UInt16, reason: String)

    /// Bytes that data frames of `generation` may queue now without anything being
    /// dropped for a slow peer (0 while the peer has not read enough), or nil once that
    /// generation is no longer current or the connection is closing. It paces a
    /// subscription's opening, which may be larger than the limit (`OpeningSender`).
    func room(for generation: UInt64) -> Int?

    /// Waits until the peer has read half the limit's worth of what is queued, or
    /// `generation` is no longer current, the connection is ending or the task is cancelled.
    func waitForRoom(for generation: UInt64) async

    /// The executor a subscription task writing to this sink should prefer: the
    /// connection's service thread, where a queued frame is written in the same turn.
    /// Nil (the default) runs it on the global concurrent executor.
    var executor: (any TaskExecutor)? { get }
}

extension FrameSink {
    public var executor: (any TaskExecutor)? { nil }

    /// No limit to pace by (a sink that never drops): everything fits.
    public func room(for generation: UInt64) -> Int? { .max }

    public func waitForRoom(for generation: UInt64) async {}
}
