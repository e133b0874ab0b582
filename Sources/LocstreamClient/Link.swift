import Locking

/// One connection of a client and the task that reads it. It hands subscription frames to
/// the sequence that owns it (at most one at a time), answers publishes in order, and sends
/// a fresh token when the server warns that the current one is expiring.
final class Link: Sendable {
    private let connection: any LocstreamConnection
    private let tokenProvider: ClientConfiguration.TokenProvider?
    private let observer: (@Sendable (WireEvent) -> Void)?
    private let state = Locked(State())

    private struct State {
        /// The sequence whose subscription this connection carries.
        var owner: Feed?
        /// Counts every change of hands; an idle timer acts only if none came after it.
        var handovers: UInt64 = 0
        /// Whether a subscription may be live on the server.
        var subscribed = false
        /// The `sub` of each `subscribe` sent and not yet answered, oldest first.
        var awaitingAnswer: [String] = []
        /// The callers of each `publish` sent and not yet answered, oldest first.
        var publishes: [CheckedContinuation<Result<[UInt64], LocstreamError>, Never>] = []
        var closed = false
    }

    private init(connection: any LocstreamConnection, configuration: ClientConfiguration) {
        self.connection = connection
        tokenProvider = configuration.tokenProvider
        observer = configuration.observer
    }

    /// A link over `connection`, already reading it; `configuration` gives the token provider
    /// and the observer.
    static func open(_ connection: any LocstreamConnection, configuration: ClientConfiguration) -> Link {
        let link = Link(connection: connection, configuration: configuration)
        Task { await link.read() }
        return link
    }

    /// Whether the connection has ended.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Takes the link out of the idle state for a new owner; false when it has closed.
    func reserve() -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.handovers += 1
            return true
        }
    }

    /// Makes `feed` the owner and sends its `subscribe` (a switch when another subscription
    /// is still live); false when the connection has closed.
    func attach(_ feed: Feed, request: SubscribeRequest) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.owner = feed
            state.handovers += 1
            state.subscribed = true
            state.awaitingAnswer.append(request.sub)
            connection.send(ClientMessage.subscribe(request).encoded())
            return true
        }
    }

    /// `feed` (or nobody, for a link reserved and not used) lets go; returns the mark the
    /// idle timers compare with, or nil when the link has closed or changed hands.
    func detach(_ feed: Feed?) -> UInt64? {
        state.withLock { state in
            guard !state.closed, state.owner === feed else { return nil }
            state.owner = nil
            state.handovers += 1
            return state.handovers
        }
    }

    /// Ends the subscription with `unsubscribe` if the link is still idle since `mark`;
    /// returns whether it was.
    func unsubscribeIfIdle(since mark: UInt64) -> Bool {
        state.withLock { state in
            guard !state.closed, state.handovers == mark else { return false }
            if state.subscribed { connection.send(ClientMessage.unsubscribe.encoded()) }
            state.subscribed = false
            return true
        }
    }

    /// Closes the connection if the link is still idle since `mark`; returns whether it was.
    func closeIfIdle(since mark: UInt64) -> Bool {
        let idle = state.withLock { !$0.closed && $0.handovers == mark }
        if idle { connection.close() }
        return idle
    }

    /// Closes the connection; its owner, if any, reconnects.
    func close() { connection.close() }

    /// Sends one `publish` frame with `ack` and waits for its answer: the assigned seqs.
    func publish(_ frame: [UInt8]) async -> Result<[UInt64], LocstreamError> {
        await withCheckedContinuation { continuation in
            let sent = state.withLock { state in
                guard !state.closed else { return false }
                state.publishes.append(continuation)
                connection.send(frame)
                return true
            }
            if !sent { continuation.resume(returning: .failure(.connectionLost("the connection had closed"))) }
        }
    }

    private func read() async {
        while true {
            let batch = await connection.receiveBatch()
            if batch.isEmpty { break }
            handle(batch)
            // A sequence that is not keeping up stops the reading, so no queue grows unbounded.
            if let owner = state.withLock({ $0.owner }), !owner.hasRoom { await owner.waitForRoom() }
        }
        let (owner, publishes) = state.withLock { state in
            state.closed = true
            defer {
                state.owner = nil
                state.publishes = []
            }
            return (state.owner, state.publishes)
        }
        for publish in publishes { publish.resume(returning: .failure(.connectionLost("the connection closed"))) }
        observer?(.closed(code: connection.closeCode))
        owner?.linkLost(self)
    }

    /// Handles the frames of one batch in order. A run of frames for the owner (`loc`,
    /// `leave`, …) goes to it in one call, so its sequence wakes once per run.
    private func handle(_ batch: [[UInt8]]) {
        var run: [(message: ServerMessage, frame: [UInt8])] = []
        run.reserveCapacity(batch.count)
        for bytes in batch {
            // Ops added to the protocol later (presence, cells) do not decode and are skipped.
            let decoded = try? ServerMessage.decode(bytes)
            observer?(.received(frame: bytes, message: decoded))
            guard let message = decoded else { continue }
            switch message {
            case .loc, .leave:
                run.append((message, bytes))
            default:
                if !run.isEmpty {
                    state.withLock { $0.owner }?.receive(run)
                    run.removeAll(keepingCapacity: true)
                }
                handle(message, frame: bytes)
            }
        }
        if !run.isEmpty { state.withLock { $0.owner }?.receive(run) }
    }

    private func handle(_ message: ServerMessage, frame bytes: [UInt8]) {
        switch message {
        case .published:
            let seqs = PublishAck.decode(bytes)?.seqs
            settlePublish(
                seqs.map { .success($0) }
                    ?? .failure(.refused(ProtocolError(.internal, "the ack names no seqs: the server predates v1.1"))))
        case .error(let error) where error.failedOp == "publish":
            settlePublish(.failure(LocstreamError(error)))
        case .error(let error) where error.code == .unauthorized && error.message == "token expiring":
            refreshToken()
        case .error(let error) where error.failedOp == "subscribe":
            // Subscribes are answered in order: the oldest unanswered one failed.
            let owner = state.withLock { state -> Feed? in
                let sub = state.awaitingAnswer.isEmpty ? nil : state.awaitingAnswer.removeFirst()
                return sub == state.owner?.sub ? state.owner : nil
            }
            owner?.receive([(message, bytes)])
        case .subscribed(let sub, _, _):
            let owner = state.withLock { state in
                if let answered = state.awaitingAnswer.firstIndex(of: sub) {
                    state.awaitingAnswer.removeSubrange(...answered)
                }
                return state.owner
            }
            owner?.receive([(message, bytes)])
        default:
            state.withLock { $0.owner }?.receive([(message, bytes)])
        }
    }

    private func settlePublish(_ result: Result<[UInt64], LocstreamError>) {
        let waiting = state.withLock { $0.publishes.isEmpty ? nil : $0.publishes.removeFirst() }
        waiting?.resume(returning: result)
    }

    /// Asks the provider for a token and sends it with `auth`; the connection and its
    /// subscription carry on. Without a provider, or when it throws, the server closes the
    /// connection at the token's `exp` and the owner reconnects.
    private func refreshToken() {
        guard let tokenProvider else { return }
        Task { [connection] in
            guard let token = try? await tokenProvider() else { return }
            connection.send(ClientMessage.auth(token: token).encoded())
        }
    }
}
