/// Room for data frames: what a sender that must not lose anything (a subscription's
/// opening, which can be larger than the limit) may queue without conflation, and the
/// one task that waits for the peer to read when there is none.
extension Outbox {
    /// Bytes that data frames of `generation` may still queue under the limit, or nil
    /// when that generation is not current or the connection is closing.
    func room(for generation: UInt64) -> Int? {
        guard !isClosed, pendingClose == nil, generation == self.generation else { return nil }
        return max(policy.maxQueuedBytes - queuedBytes, 0)
    }

    /// Whether the peer has read enough for a waiting sender to go on: at least half the
    /// limit is free (so it queues in large steps), or the connection is ending.
    var hasRoomForWaiter: Bool {
        isClosed || pendingClose != nil || queuedBytes * 2 <= policy.maxQueuedBytes
    }

    /// Takes the waiting sender once it can go on (`hasRoomForWaiter`), or whatever the
    /// state when `always` (a switch or a cancellation: it must find out for itself).
    /// The caller resumes it after letting go of the lock.
    mutating func takeRoomWaiter(always: Bool = false) -> UnsafeContinuation<Void, Never>? {
        guard let waiter = roomWaiter, always || hasRoomForWaiter else { return nil }
        roomWaiter = nil
        return waiter
    }
}
