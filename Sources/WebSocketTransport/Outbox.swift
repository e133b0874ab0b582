/// What one connection has queued for writing, and the rules for adding to it.
///
/// Data frames carry the *generation* of the subscription that produced them. The
/// outbox accepts a data frame only while its generation is current, and a switch
/// (`advance`) bumps the generation, purges every queued data frame and queues the
/// switch's acknowledgement, all in one critical section of the caller's lock. So
/// once the acknowledgement is queued, no frame of an older generation can follow it.
/// Control frames (replies, errors) have no generation and are always accepted.
///
/// It is bounded by a `SlowConsumerPolicy`. Past the byte limit, a data frame either
/// closes the connection with 4008 (`disconnect`) or is conflated: it replaces the
/// queued frame with the same key (the newest position of a device wins, and order per
/// device is kept), and when that does not make room (more distinct keys queued than
/// the limit holds) the oldest queued data frames are dropped too. So data frames never
/// hold more than the limit; control frames may use as much again before the peer
/// counts as a slow consumer whatever the policy.
struct Outbox {
    private(set) var queuedBytes = 0
    private(set) var generation: UInt64 = 0
    /// A close requested by the application, sent once the queue is written.
    private(set) var pendingClose: CloseRequest?
    /// The connection ended: nothing more is queued.
    private(set) var isClosed = false
    /// The service loop has been told about this outbox and will write it.
    var isScheduled = false
    /// A task waiting until the peer has read enough for more data frames (`Outbox+Room`).
    var roomWaiter: UnsafeContinuation<Void, Never>?
    let policy: SlowConsumerPolicy

    /// Queued frames, oldest first, from `head` on. A conflated frame leaves a hole (a
    /// `nil` frame) behind; holes and taken slots are compacted away once they
    /// outnumber the frames still queued, so a stalled peer cannot grow the array. Once
    /// everything is taken the array is freed, so an idle connection holds none (keeping
    /// its capacity cost about 0.2 KiB per idle subscribed connection, whose welcome and
    /// ack were queued together).
    private var slots: [Slot] = []
    /// Index of the first slot not yet taken.
    private var head = 0
    /// Holes at or after `head`.
    private var holes = 0
    /// No data frame is queued before this index (from `head` on): where the search
    /// for the oldest data frame resumes, so dropping many in a row stays linear.
    private var dataScan = 0
    /// Index in `slots` of the newest queued data frame of each key. Built only when
    /// the queue first goes over the limit, dropped when `slots` is reindexed, so
    /// the common case pays no hashing per frame.
    private var keyPositions: [String: Int]?

    private struct Slot {
        var frame: OutboundFrame?
        var generation: UInt64?
    }

    init(policy: SlowConsumerPolicy = SlowConsumerPolicy()) {
        self.policy = policy
    }

    /// True while frames wait to be written.
    var hasQueuedFrames: Bool { head < slots.count }

    /// Slots held: queued frames plus taken slots and holes not yet compacted away.
    var slotsHeld: Int { slots.count }

    /// Queues `frame` if its generation is current and the connection is open.
    @discardableResult
    mutating func append(_ frame: OutboundFrame, generation: UInt64?) throws(SendRefusal) -> SendEffect {
        guard !isClosed, pendingClose == nil else { throw .closed }
        if let generation, generation != self.generation { throw .staleGeneration }
        var dropped = 0
        if generation != nil, queuedBytes + frame.payloadCount > policy.maxQueuedBytes {
            if policy.action == .disconnect { throw .slowConsumer(dropped: closeSlowConsumer()) }
            if let key = frame.key, dropQueued(key: key) { dropped += 1 }
            while queuedBytes + frame.payloadCount > policy.maxQueuedBytes, dropOldestData() { dropped += 1 }
        }
        if queuedBytes + frame.payloadCount > 2 * policy.maxQueuedBytes {
            throw .slowConsumer(dropped: closeSlowConsumer())
        }
        if let key = frame.key, generation != nil { keyPositions?[key] = slots.count }
        slots.append(Slot(frame: frame, generation: generation))
        queuedBytes += frame.payloadCount
        return dropped > 0 ? .conflated(dropped: dropped) : .queued
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

    /// Takes frames from the front, up to `byteBudget` wire bytes but at least one. Each
    /// frame moves out of its slot, so taking it costs no reference count.
    mutating func takeBatch(byteBudget: Int) -> [OutboundFrame] {
        var batch: [OutboundFrame] = []
        var wireBytes = 0
        while head < slots.count {
            if let payload = slots[head].frame?.payloadCount {
                let next = FrameEncoder.wireCount(payload: payload)
                if !batch.isEmpty && wireBytes + next > byteBudget { break }
                wireBytes += next
                queuedBytes -= payload
                if let frame = slots[head].frame.take() { batch.append(frame) }
            } else {
                holes -= 1
            }
            head += 1
        }
        if head == slots.count {
            clear()
        } else if head > slots.count / 2 {
            compact()
        }
        return batch
    }

    /// Marks the connection closed and drops what was queued; returns the dropped count.
    mutating func close() -> Int {
        isClosed = true
        defer { clear() }
        return slots.count - head - holes
    }

    /// Drops the queued frame of `key`, if one is queued.
    private mutating func dropQueued(key: String) -> Bool {
        if keyPositions == nil { indexKeys() }
        guard let index = keyPositions?[key], index >= head, let old = slots[index].frame, old.key == key else {
            return false
        }
        punchHole(at: index, dropping: old)
        return true
    }

    /// Drops the oldest queued data frame, if there is one.
    private mutating func dropOldestData() -> Bool {
        var index = max(dataScan, head)
        while index < slots.count, slots[index].frame == nil || slots[index].generation == nil { index += 1 }
        dataScan = index
        guard index < slots.count, let old = slots[index].frame else { return false }
        punchHole(at: index, dropping: old)
        return true
    }

    /// Leaves a hole where `old` was queued, at `index`; compacts once holes outnumber frames.
    private mutating func punchHole(at index: Int, dropping old: OutboundFrame) {
        slots[index].frame = nil
        queuedBytes -= old.payloadCount
        holes += 1
        if holes > 32, holes > slots.count - head - holes { compact() }
    }

    /// Drops every queued data frame; returns how many.
    private mutating func purgeDataFrames() -> Int {
        let before = slots.count - head - holes
        compact { $0.generation == nil }
        queuedBytes = slots.reduce(0) { $0 + ($1.frame?.payloadCount ?? 0) }
        return before - slots.count
    }

    /// Removes taken slots, holes and the queued slots `isKept` rejects; the key index
    /// is rebuilt when next needed.
    private mutating func compact(keeping isKept: (Slot) -> Bool = { _ in true }) {
        slots = slots[head...].filter { $0.frame != nil && isKept($0) }
        head = 0
        holes = 0
        dataScan = 0
        keyPositions = nil
    }

    /// Indexes the newest queued data frame of each key.
    private mutating func indexKeys() {
        var positions: [String: Int] = [:]
        for index in head..<slots.count where slots[index].generation != nil {
            if let key = slots[index].frame?.key { positions[key] = index }
        }
        keyPositions = positions
    }

    /// The peer is too slow: drop its data frames and close with 4008 once the rest is
    /// written. Returns the dropped count.
    private mutating func closeSlowConsumer() -> Int {
        let dropped = purgeDataFrames()
        pendingClose = SlowConsumerPolicy.closeRequest
        return dropped
    }

    private mutating func clear() {
        slots.removeAll()
        head = 0
        holes = 0
        dataScan = 0
        keyPositions = nil
        queuedBytes = 0
    }
}

/// What queueing a frame did besides queueing it.
public enum SendEffect: Sendable, Equatable {
    case queued
    /// The peer is slow: `dropped` older queued data frames were dropped to make room,
    /// the one with the same key if there was one, then the oldest.
    case conflated(dropped: Int)
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
