import Auth
import LocstreamProtocol
import Observability

/// One client connection at `/v1/stream`: it greets the client, then answers each
/// message's op, one at a time, keeping the subscription in a `SubscriptionScope`. A
/// malformed message gets an `error` frame and never closes the connection by itself;
/// a client that keeps sending them spends its error budget and is closed with 1008.
/// Publishing is rate-limited per identity (`PublishIdentity`), with HTTP publishes.
///
/// A session is driven by its connection alone: `open`, then `handle` for each message
/// in order (each awaited before the next starts), then `close`.
public final class StreamSession {
    private let connectionID: String
    private let peer: String
    private let sink: any FrameSink
    private let node: Node
    private let scope: SubscriptionScope
    private var errorBudget: TokenBucket
    /// The claims of the connection's valid token (always nil with `.open` access).
    private var claims: Claims?
    /// The auth deadline until a valid token arrives, then that token's expiry timers.
    private var tokenWatch: TokenWatch?
    /// The priority the connection's messages are answered at: `.high` (ahead of frame
    /// delivery on the service thread, so a switch's ack does not wait for a burst of
    /// frames) until it publishes; from then on `.medium`, level with delivery, so that
    /// ingest never starves delivery.
    public private(set) var answerPriority = TaskPriority.high

    /// A session for connection `connectionID` from `peer` (its remote address), writing to `sink`.
    public init(connectionID: String, peer: String, sink: any FrameSink, node: Node) {
        self.connectionID = connectionID
        self.peer = peer
        self.sink = sink
        self.node = node
        errorBudget = TokenBucket(capacity: node.limits.errorBudget, refillPerSecond: 1, now: node.clock.instant)
        scope = SubscriptionScope(sink: sink, node: node, connectionID: connectionID)
    }

    /// Greets the client and, with token access, starts the authentication deadline and
    /// checks `upgradeToken` (the token sent with the upgrade, `Authorization: Bearer` or
    /// `?token=`, if any). False when the connection is being closed. The caller then
    /// passes each message to `handle` and calls `close` at the end.
    ///
    /// `open`, `handle` and `close` are never inlined, so their locals stay off the async
    /// frames of the task that answers messages (see `handle`).
    @inline(never)
    public func open(upgradeToken: String?) -> Bool {
        sink.sendControl(ServerMessage.welcome(conn: connectionID, node: node.name).encoded())
        guard let authentication = node.gate.tokens else { return true }
        tokenWatch = TokenWatch.deadline(authentication.timeout, sink: sink, queue: node.timers)
        guard let upgradeToken else { return true }
        do throws(ProtocolError) {
            try authenticate(upgradeToken, replying: false)
            return true
        } catch {
            return reject(error)
        }
    }

    /// The connection is gone: stops the token timers and releases the subscription.
    @inline(never)
    public func close() {
        tokenWatch?.cancel()
        scope.end()
    }

    /// Answers one message; false when the connection is being closed. Only the op's
    /// `AwaitedStep` is awaited here, between two synchronous, never-inlined halves, so
    /// the task answering messages (which lives while messages wait) stays in one slab.
    @inline(never)
    public func handle(_ bytes: [UInt8], isBinary: Bool) async -> Bool {
        switch answer(bytes, isBinary: isBinary) {
        case .done(let open): return open
        case .waiting(let step): return finish(refusal: await step.run())
        }
    }

    /// Where an op stands after its synchronous part.
    private enum Answer {
        /// Answered; false when the connection is being closed.
        case done(open: Bool)
        /// The op finishes when its step does.
        case waiting(AwaitedStep)
    }

    /// Decodes and performs the op in `bytes` up to its step, if it has one.
    @inline(never)
    private func answer(_ bytes: [UInt8], isBinary: Bool) -> Answer {
        do throws(ProtocolError) {
            guard let step = try perform(try decode(bytes, isBinary: isBinary)) else { return .done(open: true) }
            return .waiting(step)
        } catch {
            return .done(open: reject(error))
        }
    }

    /// Answers the end of an op's step: an `error` frame for `refusal`, if any.
    @inline(never)
    private func finish(refusal: ProtocolError?) -> Bool {
        guard let refusal else { return true }
        return reject(refusal)
    }

    /// The op in `bytes`, checked for authentication.
    @inline(never)
    private func decode(_ bytes: [UInt8], isBinary: Bool) throws(ProtocolError) -> ClientMessage {
        guard !isBinary else {
            throw ProtocolError(.badRequest, "binary frames are not accepted; send JSON text frames")
        }
        let message = try ClientMessage.decode(bytes)
        try checkAuthenticated(for: message)
        return message
    }

    /// Performs one op up to what it must wait for, returned as the step that finishes it.
    @inline(never)
    private func perform(_ message: ClientMessage) throws(ProtocolError) -> AwaitedStep? {
        switch message {
        case .subscribe(let request):
            try checkSubscribable(request)
            return try scope.subscribe(request)
        case .publish(let locations, let ack):
            answerPriority = .medium
            try checkPublishable(locations)
            return publish(locations, ack: ack)
        case .unsubscribe:
            try scope.unsubscribe()
        case .ping(let t):
            sink.sendControl(ServerMessage.pong(t: t).encoded())
        case .auth(let token):
            try reauthenticate(token)
        }
        return nil
    }

    /// Refuses a subscribe over the device limit or outside the token's rights.
    @inline(never)
    private func checkSubscribable(_ request: SubscribeRequest) throws(ProtocolError) {
        if case .devices(let devices) = request.target, devices.count > node.limits.maxSubscribeDevices {
            throw ProtocolError(
                .tooLarge, "at most \(node.limits.maxSubscribeDevices) devices per subscribe on this server",
                failedOp: "subscribe")
        }
        if let claims, !claims.allows(request.target) {
            throw ProtocolError(.forbidden, "your token does not allow this subscription", failedOp: "subscribe")
        }
    }

    /// Refuses devices outside the token's rights, then spends the identity's publish budget.
    @inline(never)
    private func checkPublishable(_ locations: [Location]) throws(ProtocolError) {
        if let claims, let denied = locations.first(where: { !claims.mayPublish(device: $0.device) }) {
            throw ProtocolError(
                .forbidden, "your token does not allow publishing for '\(denied.device)'", failedOp: "publish")
        }
        let identity = PublishIdentity(subject: claims?.subject, peer: peer)
        if let refusal = node.ingest.admit(locations.count, from: identity) { throw refusal.error }
    }

    /// Publishes through the node's ingest; `published` (with the assigned `seqs`) answers
    /// when `ack` is asked.
    private func publish(_ locations: [Location], ack: Bool) -> AwaitedStep {
        .inline { [node, sink] () async throws(ProtocolError) in
            do throws(PublishFailure) {
                let stored = try await node.ingest.publish(locations, confirmed: ack)
                if ack { sink.sendControl(PublishAck(seqs: stored.map(\.location.seq)).encoded()) }
            } catch {
                throw error.error
            }
        }
    }

    /// Answers an `auth` op: a token for a connection that had none, or a refresh.
    @inline(never)
    private func reauthenticate(_ token: String) throws(ProtocolError) {
        try authenticate(token, replying: true)
    }

    /// Until a valid token arrives, only `auth` and `ping` are allowed. The refusal names the
    /// op, so a client that has several requests in flight knows which one failed.
    private func checkAuthenticated(for message: ClientMessage) throws(ProtocolError) {
        guard node.gate.access.requiresToken, claims == nil else { return }
        switch message {
        case .auth, .ping: return
        default: throw node.gate.unauthenticated(message.op)
        }
    }

    /// Verifies `token` with the node's `Gatekeeper`. On success it becomes the connection's token (a refresh keeps
    /// the subscription, unless the new token no longer covers it), the expiry watch
    /// restarts, and `authed` answers an `auth` op. On failure an authenticated
    /// connection keeps its old token.
    private func authenticate(_ token: String, replying: Bool) throws(ProtocolError) {
        let verified = try node.gate.verify(token, connection: connectionID)
        claims = verified
        scope.restrict(to: DeviceRights(verified))
        tokenWatch?.cancel()
        node.logger.debug("authenticated", ["conn": connectionID, "client": verified.subject])
        if replying {
            sink.sendControl(ServerMessage.authed(client: verified.subject, exp: verified.expirySeconds).encoded())
        }
        // After `authed`: a token with less than the warning lead left is warned at once, and
        // the warning must not overtake the reply (issue 13, item 21).
        if let authentication = node.gate.tokens {
            tokenWatch = TokenWatch.expiry(
                remaining: node.gate.timeLeft(verified), authentication: authentication, sink: sink,
                queue: node.timers)
        }
        if let target = scope.currentTarget, !verified.allows(target) {
            try scope.unsubscribe()
        }
    }

    /// Answers with an `error` frame; spends error budget on bad requests and closes
    /// with 1008 when it runs out. Returns false when closing.
    private func reject(_ error: ProtocolError) -> Bool {
        node.metrics.count(error.code)
        node.logger.refused(
            "request refused", ["conn": connectionID, "code": error.code.rawValue, "message": error.message])
        sink.sendControl(ServerMessage.error(error).encoded())
        guard Self.spendsBudget(error.code), !errorBudget.take(now: node.clock.instant) else { return true }
        node.metrics.errorBudgetClosed.increment()
        node.logger.warning("error budget spent", ["conn": connectionID, "code": 1008])
        sink.close(code: 1008, reason: "too many bad requests")
        return false
    }

    /// Whether an error counts against the budget: malformed or refused requests do;
    /// a server failure or a rate limit does not.
    private static func spendsBudget(_ code: ErrorCode) -> Bool {
        code != .internal && code != .rateLimited
    }
}
