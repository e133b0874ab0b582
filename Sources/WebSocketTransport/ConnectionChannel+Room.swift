extension ConnectionChannel {
    /// Bytes that data frames of `generation` may queue now without anything being
    /// dropped (0 when the peer has not read enough), or nil when that generation is no
    /// longer current or the connection is closing.
    func room(for generation: UInt64) -> Int? {
        outbox.withLock { $0.room(for: generation) }
    }

    /// Waits until the peer has read at least half the limit's worth of what is queued,
    /// `generation` is no longer current, the connection is ending or the calling task
    /// is cancelled. One task at a time waits (the connection's subscription task); a
    /// switch cancels it and makes a new generation current, and either wakes it.
    func waitForRoom(for generation: UInt64) async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (waiter: UnsafeContinuation<Void, Never>) in
                let (waits, previous) = outbox.withLock { outbox -> (Bool, UnsafeContinuation<Void, Never>?) in
                    guard !Task.isCancelled, outbox.room(for: generation) != nil, !outbox.hasRoomForWaiter else {
                        return (false, nil)
                    }
                    defer { outbox.roomWaiter = waiter }
                    return (true, outbox.roomWaiter)
                }
                previous?.resume()
                if !waits { waiter.resume() }
            }
        } onCancel: {
            outbox.withLock { $0.takeRoomWaiter(always: true) }?.resume()
        }
    }
}
