import Auth
import Foundation
import LocstreamProtocol
import Observability

/// One client connection at `/v1/stream`: it greets the client, then reads its
/// messages one at a time and answers each op, keeping the subscription in a
/// `SubscriptionScope`. A malformed message gets an `error` frame and never closes
/// the connection by itself; a client that keeps sending them spends its error budget
/// and is closed with 1008. Publishing is rate-limited per connection.
///
/// A session is driven by its connection's task alone, one message at a time.
public final class StreamSession {
    /// What every session on a node shares.
    public struct Environment: Sendable {
        public var node: String
        public var hub: Hub
        public var broker: any Broker
        public var ingest: Ingest
        public var metrics: StreamMetrics
        public var logger: Logger
        public var limits: SessionLimits
        public var access: AccessPolicy

        /// The shared parts of a node.
        public init(
            node: String, hub: Hub, broker: any Broker, metrics: StreamMetrics, logger: Logger,
            limits: SessionLimits = SessionLimits(), access: AccessPolicy = .open
        ) {
            self.limits = limits
            self.access = access
            self.node = node
            self.hub = hub
            self.broker = broker
            self.ingest = Ingest(broker: broker, metrics: metrics)
            self.metrics = metrics
            self.logger = logger
        }
    }

    private let connectionID: String
    private let sink: any FrameSink
    private let environment: Environment
    private let scope: SubscriptionScope
    private var publishBudget: TokenBucket
    private var errorBudget: TokenBucket
    /// The claims of the connection's valid token (always nil with `.open` access).
    private var claims: Claims?
    private var authDeadline: Task<Void, Never>?
    private var tokenWatch: Task<Void, Never>?

    /// A session for connection `connectionID`, writing to `sink`.
    public init(connectionID: String, sink: any FrameSink, environment: Environment) {
        self.connectionID = connectionID
        self.sink = sink
        self.environment = environment
        publishBudget = TokenBucket(
            capacity: environment.limits.publishBurst, refillPerSecond: environment.limits.publishRate)
        errorBudget = TokenBucket(capacity: environment.limits.errorBudget, refillPerSecond: 1)
        scope = SubscriptionScope(
            sink: sink, hub: environment.hub, broker: environment.broker, metrics: environment.metrics,
            logger: environment.logger, connectionID: connectionID, maxAreaKm2: environment.limits.maxAreaKm2)
    }

    /// Serves `messages` until they end (the connection closed or the task was
    /// cancelled), then releases the subscription. `upgradeToken` is the token sent
    /// with the upgrade (`Authorization: Bearer` or `?token=`), if any.
    public func run<Messages: AsyncSequence>(_ messages: Messages, upgradeToken: String? = nil) async
    where Messages.Element == (bytes: [UInt8], isBinary: Bool) {
        defer {
            authDeadline?.cancel()
            tokenWatch?.cancel()
            scope.end()
        }
        sink.sendControl(ServerMessage.welcome(conn: connectionID, node: environment.node).encoded())
        if case .tokens(let authentication) = environment.access {
            authDeadline = TokenWatch.deadline(authentication.timeout, sink: sink)
            if let upgradeToken {
                do throws(ProtocolError) {
                    try await authenticate(upgradeToken, with: authentication, replying: false)
                } catch {
                    guard reject(error) else { return }
                }
            }
        }
        do {
            for try await message in messages {
                guard !Task.isCancelled else { return }
                guard await handle(message.bytes, isBinary: message.isBinary) else { return }
            }
        } catch {
            environment.logger.debug("message stream failed", ["conn": connectionID, "error": "\(error)"])
        }
    }

    /// Answers one message; false when the connection is being closed.
    func handle(_ bytes: [UInt8], isBinary: Bool) async -> Bool {
        do throws(ProtocolError) {
            guard !isBinary else {
                throw ProtocolError(.badRequest, "binary frames are not accepted; send JSON text frames")
            }
            try await perform(try ClientMessage.decode(bytes))
            return true
        } catch {
            return reject(error)
        }
    }

    private func perform(_ message: ClientMessage) async throws(ProtocolError) {
        try checkAuthenticated(for: message)
        switch message {
        case .subscribe(let request):
            if case .devices(let devices) = request.target, devices.count > environment.limits.maxSubscribeDevices {
                throw ProtocolError(
                    .tooLarge, "at most \(environment.limits.maxSubscribeDevices) devices per subscribe on this server",
                    failedOp: "subscribe")
            }
            if let claims, !claims.allows(request.target) {
                throw ProtocolError(.forbidden, "your token does not allow this subscription", failedOp: "subscribe")
            }
            try await scope.subscribe(request)
        case .unsubscribe:
            try scope.unsubscribe()
        case .publish(let locations, let ack):
            guard publishBudget.take(Double(locations.count)) else {
                throw ProtocolError(
                    .rateLimited,
                    "publishing faster than \(Int(environment.limits.publishRate)) locations/s; slow down and retry",
                    failedOp: "publish")
            }
            if let claims, let denied = locations.first(where: { !claims.mayPublish(device: $0.device) }) {
                throw ProtocolError(
                    .forbidden, "your token does not allow publishing for '\(denied.device)'", failedOp: "publish")
            }
            let stored = try await environment.ingest.publish(locations)
            if ack { sink.sendControl(ServerMessage.published(count: stored.count).encoded()) }
        case .ping(let t):
            sink.sendControl(ServerMessage.pong(t: t).encoded())
        case .auth(let token):
            guard case .tokens(let authentication) = environment.access else {
                throw ProtocolError(
                    .badRequest, "authentication is off on this server (--auth none); no token is needed",
                    failedOp: "auth")
            }
            try await authenticate(token, with: authentication, replying: true)
        }
    }

    /// Until a valid token arrives, only `auth` and `ping` are allowed.
    private func checkAuthenticated(for message: ClientMessage) throws(ProtocolError) {
        guard environment.access.requiresToken, claims == nil else { return }
        switch message {
        case .auth, .ping: return
        default:
            environment.metrics.authFailures["missing"]?.increment()
            throw ProtocolError(.unauthorized, "authenticate first: send {\"op\":\"auth\",\"token\":\"…\"}")
        }
    }

    /// Verifies `token`. On success it becomes the connection's token (a refresh keeps
    /// the subscription, unless the new token no longer covers it), the expiry watch
    /// restarts, and `authed` answers an `auth` op. On failure an authenticated
    /// connection keeps its old token.
    private func authenticate(_ token: String, with authentication: TokenAuthentication, replying: Bool)
        async throws(ProtocolError)
    {
        let verified: Claims
        do {
            verified = try authentication.verify(token, Date())
        } catch {
            environment.metrics.authFailures[error.reason.rawValue]?.increment()
            environment.logger.info(
                "auth failed", ["conn": connectionID, "reason": error.reason.rawValue, "detail": error.message])
            throw ProtocolError(.unauthorized, "token refused: \(error.message)", failedOp: "auth")
        }
        claims = verified
        authDeadline?.cancel()
        tokenWatch?.cancel()
        tokenWatch = TokenWatch.start(expiresAt: verified.expiresAt, authentication: authentication, sink: sink)
        environment.logger.debug("authenticated", ["conn": connectionID, "client": verified.subject])
        if replying {
            let exp = Int64(verified.expiresAt.timeIntervalSince1970)
            sink.sendControl(ServerMessage.authed(client: verified.subject, exp: exp).encoded())
        }
        if let target = scope.currentTarget, !verified.allows(target) {
            try scope.unsubscribe()
        }
    }

    /// Answers with an `error` frame; spends error budget on bad requests and closes
    /// with 1008 when it runs out. Returns false when closing.
    private func reject(_ error: ProtocolError) -> Bool {
        environment.metrics.count(error.code)
        environment.logger.debug(
            "request refused", ["conn": connectionID, "code": error.code.rawValue, "message": error.message])
        sink.sendControl(ServerMessage.error(error).encoded())
        guard Self.spendsBudget(error.code), !errorBudget.take() else { return true }
        environment.metrics.errorBudgetClosed.increment()
        environment.logger.warning("error budget spent", ["conn": connectionID, "code": 1008])
        sink.close(code: 1008, reason: "too many bad requests")
        return false
    }

    /// Whether an error counts against the budget: malformed or refused requests do;
    /// a server failure or a rate limit does not.
    private static func spendsBudget(_ code: ErrorCode) -> Bool {
        code != .internal && code != .rateLimited
    }
}
