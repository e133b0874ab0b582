import Locking

/// The running side of one location sequence: it finds a connection (an idle one of the
/// client, else a new one), subscribes, turns frames into `LocationUpdate`s, reconnects and
/// resumes after a fault, and lets go of everything when the sequence ends.
///
/// Every element is yielded under the feed's lock after checking that it has not ended, and
/// `end()` marks it ended under the same lock before the connection can go to another
/// sequence: so no element of an ended sequence follows the start of the next one.
///
/// Updates go to the iterating task in batches: all those one batch of frames from the
/// connection made, in one `yield`, so the iterator wakes once per batch, not per update.
///
/// The buffer between the feed and the iterating task is bounded: once `bufferLimit` updates
/// wait in it, the connection's reader stops reading (`waitForRoom`), the transport's own
/// bounded queue fills, and the server treats the sequence as a slow consumer (it conflates).
final class Feed: Sendable {
    /// The subscription id, unique within the client.
    let sub: String
    private let request: SubscribeRequest
    private let client: LocstreamClient
    private let continuation: AsyncStream<Result<[Delivery], LocstreamError>>.Continuation
    private let state = Locked(State())

    private struct State {
        var ended = false
        var link: Link?
        var connecting: Task<Void, Never>?
        var tracker = SeqTracker()
        /// Whether a subscription of this feed has ever been live: a new one is a resume.
        var wasLive = false
        var resuming = false
        /// The opening (snapshot or replay) frames still to come, while they come.
        var opening: Int?
        var attempt = 0
        /// Updates yielded and not yet taken by the iterator.
        var buffered = 0
        /// Updates made under the lock and not yet yielded: `flush` yields them as one batch.
        var outgoing: [Delivery] = []
        /// The connection's reader, waiting for the buffer to drain.
        var roomWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What `adopt` made of a connection.
    private enum Adoption {
        case adopted, ended, linkClosed
    }

    /// A feed for `request`, yielding into `continuation`; `start()` sets it going.
    init(
        request: SubscribeRequest, client: LocstreamClient,
        continuation: AsyncStream<Result<[Delivery], LocstreamError>>.Continuation
    ) {
        sub = request.sub
        self.request = request
        self.client = client
        self.continuation = continuation
    }

    /// Starts connecting and subscribing.
    func start() {
        state.withLock { state in
            guard !state.ended else { return }
            state.connecting = Task { await self.connect(afterFault: false) }
        }
    }

    /// Ends the sequence: stops reconnecting and hands the connection back to the client,
    /// which switches it to the next sequence or unsubscribes. Safe to call more than once.
    func end(failure: LocstreamError? = nil) {
        let held = state.withLock { state -> (Link?, Task<Void, Never>?, [CheckedContinuation<Void, Never>])? in
            guard !state.ended else { return nil }
            state.ended = true
            defer {
                state.link = nil
                state.connecting = nil
                state.roomWaiters = []
            }
            return (state.link, state.connecting, state.roomWaiters)
        }
        guard let (link, connecting, roomWaiters) = held else { return }
        for waiter in roomWaiters { waiter.resume() }
        connecting?.cancel()
        if let link { client.park(link, from: self) }
        if let failure { continuation.yield(.failure(failure)) }
        continuation.finish()
    }

    /// Frames from the server on this feed's connection, in order: each `message` decoded
    /// from its `frame`. The updates they make go to the iterator as one batch.
    func receive(_ messages: [(message: ServerMessage, frame: [UInt8])]) {
        var failure: LocstreamError?
        state.withLock { state in
            guard !state.ended else { return }
            for (message, frame) in messages {
                switch message {
                case .subscribed(let sub, _, let count) where sub == self.sub:
                    state.attempt = 0
                    state.wasLive = true
                    state.opening = count
                    if count == 0 { finishOpening(&state) }
                case .loc(let sub, let location) where sub == self.sub:
                    if state.tracker.admit(location) {
                        let previous = state.tracker.previousOfAdmitted
                        yield(Delivery(.location(location), frame: kept(frame), previousSeq: previous), &state)
                    }
                    // The opening's count includes a repeat the tracker drops.
                    if let remaining = state.opening {
                        state.opening = remaining - 1
                        if remaining <= 1 { finishOpening(&state) }
                    }
                case .leave(let sub, let device) where sub == self.sub:
                    yield(Delivery(.left(device: device), frame: kept(frame)), &state)
                case .unsubscribed(let sub) where sub == self.sub:
                    failure = .endedByServer
                case .error(let error) where error.failedOp == "subscribe":
                    failure = LocstreamError(error)
                default:
                    break
                }
                if failure != nil { break }
            }
            flush(&state)
        }
        if let failure { end(failure: failure) }
    }

    /// `link` has closed: reconnect, unless the feed has ended or moved on.
    func linkLost(_ link: Link) {
        state.withLock { state in
            guard !state.ended, state.link === link else { return }
            state.link = nil
            state.opening = nil
            state.connecting = Task { await self.connect(afterFault: true) }
        }
    }

    /// Whether the buffer has room (or the feed has ended): the reader need not wait.
    var hasRoom: Bool {
        state.withLock { $0.ended || $0.buffered < client.configuration.bufferLimit }
    }

    /// Returns once the buffer has room, or the feed has ended.
    func waitForRoom() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                guard !state.ended, state.buffered >= client.configuration.bufferLimit else { return true }
                state.roomWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// The iterator took `count` updates from the buffer.
    func taken(_ count: Int) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.buffered -= count
            guard state.buffered < client.configuration.bufferLimit else { return [] }
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// `frame`, when the client keeps frames for its deliveries.
    private func kept(_ frame: [UInt8]) -> [UInt8]? {
        client.configuration.keepsFrames ? frame : nil
    }

    /// Adds `delivery` to the batch `flush` yields, before the lock is let go.
    private func yield(_ delivery: Delivery, _ state: inout State) {
        state.outgoing.append(delivery)
        state.buffered += 1
    }

    /// Yields the updates made so far as one batch; called under the lock, after checking
    /// that the feed has not ended.
    private func flush(_ state: inout State) {
        guard !state.outgoing.isEmpty else { return }
        continuation.yield(.success(state.outgoing))
        state.outgoing = []
    }

    private func finishOpening(_ state: inout State) {
        state.opening = nil
        let update: LocationUpdate = state.resuming ? .resumed(gaps: state.tracker.finishResume()) : .snapshotEnd
        state.resuming = false
        yield(Delivery(update), &state)
    }

    /// Finds a connection and subscribes on it, waiting first (and between failed attempts)
    /// as the reconnect policy says, until it succeeds or the feed ends.
    private func connect(afterFault fault: Bool) async {
        var fault = fault
        while true {
            if fault {
                let attempt = state.withLock { state -> Int? in
                    guard !state.ended else { return nil }
                    state.attempt += 1
                    return state.attempt
                }
                guard let attempt else { return }
                let delay = client.configuration.reconnect.delay(attempt: attempt)
                emit(.reconnecting(attempt: attempt, delay: delay))
                do { try await Task.sleep(for: delay) } catch { return }
            }
            fault = true
            let link: Link
            if let idle = client.claimIdle() {
                link = idle
            } else {
                do {
                    link = try await client.open()
                } catch {
                    continue
                }
            }
            switch adopt(link) {
            case .adopted: return
            case .ended: client.park(link, from: nil)
            case .linkClosed: continue
            }
            return
        }
    }

    /// Subscribes on `link`, with `since` when resuming.
    private func adopt(_ link: Link) -> Adoption {
        state.withLock { state in
            guard !state.ended else { return .ended }
            var request = self.request
            state.resuming = state.wasLive
            if state.resuming {
                request = state.tracker.resume(request, maxBytes: client.configuration.maxSubscribeBytes)
            }
            guard link.attach(self, request: request) else { return .linkClosed }
            state.link = link
            state.opening = nil
            return .adopted
        }
    }

    private func emit(_ update: LocationUpdate) {
        state.withLock { state in
            guard !state.ended else { return }
            yield(Delivery(update), &state)
            flush(&state)
        }
    }
}
