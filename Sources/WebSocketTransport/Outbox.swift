/// What one connection has queued for writing, and the rules for adding to it.
///
/// Data frames carry the *generation* of the subscription that produced them. The
/// outbox accepts a data frame only while its generation is current, and a switch
/// (`advance`) bumps the generation, purges every queued data frame and queues the
/// switch's acknowledgement, all in one critical section of the caller's lock. So
/// once the acknowledgement is queued, no frame of an older generation can follow it.
/// Control frames (replies, errors) have no generation and are always accepted.
struct Outbox {
    private(set) var frames: [QueuedFrame] = []
    private(set) var queuedBytes = 0
    private(set) var generation: UInt64 = 0
    /// A close requested by the application, sent once the queue is written.
    private(set) var pendingClose: CloseRequest?
    /// The connection ended: nothing more is queued.
    private(set) var isClosed = false
    /// The service loop has been told about this outbox and will write it.
    var isScheduled = false

    /// A frame and the generation it belongs to (`nil` for control frames).
    struct QueuedFrame {
        var frame: OutboundFrame
        var generation: UInt64?
    }

    /// Queues `frame` if its generation is current and the connection is open.
    mutating func append(_ frame: OutboundFrame, generation: UInt64?) throws(SendRefusal) {
        guard !isClosed, pendingClose == nil else { throw .closed }
        if let generation, generation != self.generation { throw .staleGeneration }
        frames.append(QueuedFrame(frame: frame, generation: generation))
        queuedBytes += frame.payloadCount
    }

    /// Makes `generation` current, drops every queued data frame, then queues `ack`.
    /// Returns how many frames were purged.
    mutating func advance(to generation: UInt64, ack: OutboundFrame?) -> Int {
        self.generation = generation
        let before = frames.count
        frames.removeAll { $0.generation != nil }
        let purged = before - frames.count
        queuedBytes = frames.reduce(0) { $0 + $1.frame.payloadCount }
        if let ack, !isClosed, pendingClose == nil {
            frames.append(QueuedFrame(frame: ack, generation: nil))
            queuedBytes += ack.payloadCount
        }
        return purged
    }

    /// Asks for a close once what is queued has been written. The first request wins.
    mutating func requestClose(_ request: CloseRequest) {
        guard !isClosed, pendingClose == nil else { return }
        pendingClose = request
    }

    /// Takes frames from the front, up to `byteBudget` wire bytes but at least one.
    mutating func takeBatch(byteBudget: Int) -> [OutboundFrame] {
        var wireBytes = 0
        var count = 0
        while count < frames.count {
            let next = FrameEncoder.wireCount(of: frames[count].frame)
            if count > 0 && wireBytes + next > byteBudget { break }
            wireBytes += next
            count += 1
        }
        let batch = frames.prefix(count).map(\.frame)
        if count == frames.count {
            frames = []
            queuedBytes = 0
        } else {
            frames.removeFirst(count)
            queuedBytes -= batch.reduce(0) { $0 + $1.payloadCount }
        }
        return batch
    }

    /// Marks the connection closed and drops what was queued; returns the dropped count.
    mutating func close() -> Int {
        isClosed = true
        defer {
            frames = []
            queuedBytes = 0
        }
        return frames.count
    }
}

/// Why the outbox did not queue a frame.
public enum SendRefusal: Error, Equatable, Sendable {
    /// The frame's subscription generation is no longer current.
    case staleGeneration
    /// The connection is closing or closed.
    case closed
}

/// A close the application asked for: the code and reason sent in the close frame.
public struct CloseRequest: Sendable, Equatable {
    /// The RFC 6455 close code, e.g. 1000, 1001, 1009, 4008.
    public var code: UInt16
    /// A short reason, at most 123 bytes on the wire.
    public var reason: String

    /// A close with `code` and `reason`.
    public init(code: UInt16, reason: String = "") {
        self.code = code
        self.reason = reason
    }
}
