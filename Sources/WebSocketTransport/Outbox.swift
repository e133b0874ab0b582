/// What one connection has queued for writing, and the rules for adding to it.
///
/// Data frames carry the *generation* of the subscription that produced them. The
/// outbox accepts a data frame only while its generation is current, and a switch
/// (`advance`) bumps the generation, purges every queued data frame and queues the
/// switch's acknowledgement, all in one critical section of the caller's lock. So
/// once the acknowledgement is queued, no frame of an older generation can follow it.
/// Control frames (replies, errors) have no generation and are always accepted.
///
/// It is bounded by a `SlowConsumerPolicy`: past the byte limit, a data frame either
/// replaces the queued frame with the same key (conflation: the newest position of a
/// device wins, and order per device is kept) or closes the connection with 4008.
struct Outbox {
    private(set) var queuedBytes = 0
    private(set) var generation: UInt64 = 0
    /// A close requested by the application, sent once the queue is written.
    private(set) var pendingClose: CloseRequest?
    /// The connection ended: nothing more is queued.
    private(set) var isClosed = false
    /// The service loop has been told about this outbox and will write it.
    var isScheduled = false
    let policy: SlowConsumerPolicy

    /// Queued frames, oldest first; a conflated one leaves a `nil` frame behind.
    private var slots: [Slot] = []
    /// Frames taken from the front since `keyPositions` was last rebuilt.
    private var taken = 0
    /// Where the newest queued frame of each key sits: `taken + index into slots`.
    private var keyPositions: [String: Int] = [:]

    private struct Slot {
        var frame: OutboundFrame?
        var generation: UInt64?
    }

    init(policy: SlowConsumerPolicy = SlowConsumerPolicy()) {
        self.policy = policy
    }

    /// True while frames wait to be written.
    var hasQueuedFrames: Bool { !slots.isEmpty }

    /// Queues `frame` if its generation is current and the connection is open.
    @discardableResult
    mutating func append(_ frame: OutboundFrame, generation: UInt64?) throws(SendRefusal) -> SendEffect {
        guard !isClosed, pendingClose == nil else { throw .closed }
        if let generation, generation != self.generation { throw .staleGeneration }
        var effect = SendEffect.queued
        if queuedBytes + frame.payloadCount > policy.maxQueuedBytes {
            if queuedBytes + frame.payloadCount > 2 * policy.maxQueuedBytes
                || (generation != nil && policy.action == .disconnect)
            {
                throw .slowConsumer(dropped: closeSlowConsumer())
            }
            if generation != nil, let key = frame.key, dropQueued(key: key) { effect = .conflated }
        }
        if let key = frame.key, generation != nil { keyPositions[key] = taken + slots.count }
        slots.append(Slot(frame: frame, generation: generation))
        queuedBytes += frame.payloadCount
        return effect
    }

    /// Makes `generation` current, drops every queued data frame, then queues `ack`.
    /// Returns how many frames were purged.
    mutating func advance(to generation: UInt64, ack: OutboundFrame?) -> Int {
        self.generation = generation
        let purged = purgeDataFrames()
        if let ack, !isClosed, pendingClose == nil {
            slots.append(Slot(frame: ack, generation: nil))
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
        var batch: [OutboundFrame] = []
        var wireBytes = 0
        var count = 0
        while count < slots.count {
            if let frame = slots[count].frame {
                let next = FrameEncoder.wireCount(of: frame)
                if !batch.isEmpty && wireBytes + next > byteBudget { break }
                wireBytes += next
                queuedBytes -= frame.payloadCount
                batch.append(frame)
            }
            count += 1
        }
        if count == slots.count {
            slots.removeAll(keepingCapacity: slots.capacity <= 64)
            keyPositions.removeAll(keepingCapacity: true)
            taken = 0
        } else {
            slots.removeFirst(count)
            taken += count
        }
        return batch
    }

    /// Marks the connection closed and drops what was queued; returns the dropped count.
    mutating func close() -> Int {
        isClosed = true
        defer { clear() }
        return slots.count { $0.frame != nil }
    }

    /// Drops the queued frame of `key`, if one is queued.
    private mutating func dropQueued(key: String) -> Bool {
        guard let position = keyPositions[key], position >= taken else { return false }
        let index = position - taken
        guard index < slots.count, let old = slots[index].frame, old.key == key else { return false }
        slots[index].frame = nil
        queuedBytes -= old.payloadCount
        return true
    }

    /// Drops every queued data frame; returns how many.
    private mutating func purgeDataFrames() -> Int {
        let before = slots.count { $0.frame != nil }
        slots.removeAll { $0.generation != nil || $0.frame == nil }
        keyPositions.removeAll(keepingCapacity: true)
        taken = 0
        queuedBytes = slots.reduce(0) { $0 + ($1.frame?.payloadCount ?? 0) }
        return before - slots.count
    }

    /// The peer is too slow: drop its data frames and close with 4008 once the rest is
    /// written. Returns the dropped count.
    private mutating func closeSlowConsumer() -> Int {
        let dropped = purgeDataFrames()
        pendingClose = SlowConsumerPolicy.closeRequest
        return dropped
    }

    private mutating func clear() {
        slots = []
        keyPositions = [:]
        taken = 0
        queuedBytes = 0
    }
}

/// What queueing a frame did besides queueing it.
public enum SendEffect: Sendable, Equatable {
    case queued
    /// The peer is slow: an older queued frame with the same key was dropped for it.
    case conflated
}

/// Why the outbox did not queue a frame.
public enum SendRefusal: Error, Equatable, Sendable {
    /// The frame's subscription generation is no longer current.
    case staleGeneration
    /// The connection is closing or closed.
    case closed
    /// The peer reads too slowly: the connection is closing with 4008, and `dropped`
    /// queued data frames were discarded.
    case slowConsumer(dropped: Int)
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
