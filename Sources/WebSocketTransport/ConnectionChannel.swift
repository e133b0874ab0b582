import Locking

/// The state of one connection shared between the service thread and Swift tasks.
///
/// Tasks append to the outbox and consume inbound messages; the service thread
/// writes the outbox to the socket and delivers what it reads. Each side takes the
/// lock briefly and then posts to the loop's mailbox when the loop has work to do.
final class ConnectionChannel: Sendable {
    let id: ConnectionID
    /// What the peer sent in its upgrade request (server side), or the path asked for
    /// (client side), until `takeRequest` hands it out.
    private let request: Locked<UpgradeRequest?>
    let outbox: Locked<Outbox>
    /// The executor of the connection's service thread, on which the tasks that serve it
    /// run best (a server connection's subscription task, a client's reader).
    let executor: ServiceExecutor?
    let inbound = Locked(InboundQueue())
    /// The close code the peer sent, if it sent one.
    let peerClose = Locked<CloseRequest?>(nil)
    /// Reading was paused and the consumer has caught up: the loop should resume it.
    let wantsReadingResumed = Locked(false)
    private let notifyLoop: @Sendable (ConnectionID) -> Void

    init(
        id: ConnectionID, request: UpgradeRequest, policy: SlowConsumerPolicy = SlowConsumerPolicy(),
        executor: ServiceExecutor? = nil, notifyLoop: @escaping @Sendable (ConnectionID) -> Void
    ) {
        self.id = id
        self.executor = executor
        self.request = Locked(request)
        self.notifyLoop = notifyLoop
        outbox = Locked(Outbox(policy: policy))
    }

    /// The upgrade request, once; later calls get an empty one.
    func takeRequest() -> UpgradeRequest {
        request.withLock { $0.take() } ?? UpgradeRequest()
    }

    // MARK: Writing (any thread)

    /// Queues `frame` under `generation` (nil for control frames) and wakes the loop.
    /// A slow consumer's close is scheduled here too, before the refusal is thrown.
    func send(_ frame: OutboundFrame, generation: UInt64?) throws(SendRefusal) -> SendEffect {
        let (result, schedule) = outbox.withLock { outbox -> (Result<SendEffect, SendRefusal>, Bool) in
            do throws(SendRefusal) {
                let effect = try outbox.append(frame, generation: generation)
                return (.success(effect), outbox.markScheduled())
            } catch {
                let slow = if case .slowConsumer = error { true } else { false }
                return (.failure(error), slow && outbox.markScheduled())
            }
        }
        if schedule { notifyLoop(id) }
        return try result.get()
    }

    /// Switches to `generation`: purges older data frames and queues `ack` atomically.
    /// Returns the number of purged frames.
    @discardableResult
    func advance(to generation: UInt64, ack: OutboundFrame?) -> Int {
        let (purged, schedule, waiter) = outbox.withLock { outbox in
            (outbox.advance(to: generation, ack: ack), outbox.markScheduled(), outbox.takeRoomWaiter(always: true))
        }
        waiter?.resume()
        if schedule { notifyLoop(id) }
        return purged
    }

    /// Closes the connection with `request` once the queued frames are written.
    func close(_ request: CloseRequest) {
        let (schedule, waiter) = outbox.withLock { outbox in
            outbox.requestClose(request)
            return (outbox.markScheduled(), outbox.takeRoomWaiter())
        }
        waiter?.resume()
        if schedule { notifyLoop(id) }
    }

    // MARK: Answering (server side)

    /// Parks the handler `WebSocketServerDelegate.open` returned: a drain starts with it
    /// when the first message arrives (`LiveSocket.receive`).
    func park(_ handler: sending any MessageHandler) {
        let priority = handler.answerPriority
        let parcel = Parcel(handler)
        _ = inbound.withLock { $0.park(parcel, priority: priority) }
    }

    /// The connection is gone: cancels a running drain first, then ends the inbound
    /// sequence, and ends the handler if it is parked (a running drain ends it itself).
    func finishInbound() {
        inbound.withLock { $0.drain.take() }?.cancel()
        let parked = inbound.withLock { queue in
            queue.finish()
            return queue.takeParkedHandler()
        }
        parked?.open()?.end()
    }

    // MARK: Reading (consumer task)

    /// The next message, or `nil` at the end or when the calling task is cancelled.
    /// Inlined into the iterator: one async frame less for every idle connection.
    @inline(__always)
    func nextMessage() async -> InboundMessage? {
        if let ready = take(orWait: nil) { return ready }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                if let ready = take(orWait: continuation) { continuation.resume(returning: ready) }
            }
        } onCancel: {
            inbound.withLock { $0.resumeWaiter() }
        }
    }

    /// Every message received and not yet taken, oldest first, waiting for the first one
    /// when none is queued; empty at the end or when the calling task is cancelled. One
    /// wake-up of the consumer takes everything the service thread queued meanwhile.
    func nextMessages() async -> [InboundMessage] {
        let ready = takeAll()
        if !ready.isEmpty { return ready }
        guard let first = await nextMessage() else { return [] }
        return [first] + takeAll()
    }

    /// Takes every queued message (empty when none is), resuming reading from the socket
    /// when it was paused.
    private func takeAll() -> [InboundMessage] {
        let (messages, resume) = inbound.withLock { queue -> ([InboundMessage], Bool) in
            let messages = queue.popAll()
            let resume = !messages.isEmpty && queue.isReadingPaused
            if resume { queue.isReadingPaused = false }
            return (messages, resume)
        }
        if resume {
            wantsReadingResumed.withLock { $0 = true }
            notifyLoop(id)
        }
        return messages
    }

    /// A queued message (`.some(message)`), the end (`.some(nil)`), or nil when the
    /// queue is empty; never waits.
    func nextMessageIfReady() -> InboundMessage?? {
        take(orWait: nil)
    }

    /// Takes a queued message (`.some(message)`), reports the end (`.some(nil)`), or
    /// installs `waiter` and returns `nil` when there is nothing yet. Resumes reading
    /// from the socket once a paused queue has drained to its low watermark.
    private func take(orWait waiter: UnsafeContinuation<InboundMessage?, Never>?) -> InboundMessage?? {
        let (result, resume): (InboundMessage??, Bool) = inbound.withLock { queue in
            if let message = queue.pop() {
                let resume = queue.isReadingPaused && queue.count <= InboundQueue.lowWatermark
                if resume { queue.isReadingPaused = false }
                return (.some(message), resume)
            }
            if queue.isFinished || Task.isCancelled { return (.some(nil), false) }
            if let waiter { queue.waiter = waiter }
            return (nil, false)
        }
        if resume {
            wantsReadingResumed.withLock { $0 = true }
            notifyLoop(id)
        }
        return result
    }
}

extension Outbox {
    /// Marks the outbox scheduled; true if the loop must be told (it was not already).
    mutating func markScheduled() -> Bool {
        defer { isScheduled = true }
        return !isScheduled
    }
}
