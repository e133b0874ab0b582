import LocstreamProtocol
import Observability

/// One client connection at `/v1/stream`: it greets the client, then reads its
/// messages one at a time and answers each op, keeping the subscription in a
/// `SubscriptionScope`. A malformed message gets an `error` frame and never closes
/// the connection by itself.
public struct StreamSession {
    /// What every session on a node shares.
    public struct Environment: Sendable {
        public var node: String
        public var hub: Hub
        public var broker: any Broker
        public var ingest: Ingest
        public var metrics: StreamMetrics
        public var logger: Logger

        /// The shared parts of a node.
        public init(node: String, hub: Hub, broker: any Broker, metrics: StreamMetrics, logger: Logger) {
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

    /// A session for connection `connectionID`, writing to `sink`.
    public init(connectionID: String, sink: any FrameSink, environment: Environment) {
        self.connectionID = connectionID
        self.sink = sink
        self.environment = environment
        scope = SubscriptionScope(
            sink: sink, hub: environment.hub, broker: environment.broker, metrics: environment.metrics,
            logger: environment.logger, connectionID: connectionID)
    }

    /// Serves `messages` until they end (the connection closed or the task was
    /// cancelled), then releases the subscription.
    public func run<Messages: AsyncSequence>(_ messages: Messages) async
    where Messages.Element == (bytes: [UInt8], isBinary: Bool) {
        defer { scope.end() }
        sink.sendControl(ServerMessage.welcome(conn: connectionID, node: environment.node).encoded())
        do {
            for try await message in messages {
                guard !Task.isCancelled else { return }
                await handle(message.bytes, isBinary: message.isBinary)
            }
        } catch {
            environment.logger.debug("message stream failed", ["conn": connectionID, "error": "\(error)"])
        }
    }

    /// Answers one message.
    func handle(_ bytes: [UInt8], isBinary: Bool) async {
        do throws(ProtocolError) {
            guard !isBinary else {
                throw ProtocolError(.badRequest, "binary frames are not accepted; send JSON text frames")
            }
            try await perform(try ClientMessage.decode(bytes))
        } catch {
            reject(error)
        }
    }

    private func perform(_ message: ClientMessage) async throws(ProtocolError) {
        switch message {
        case .subscribe(let request):
            try await scope.subscribe(request)
        case .unsubscribe:
            try scope.unsubscribe()
        case .publish(let locations, let ack):
            let stored = try await environment.ingest.publish(locations)
            if ack { sink.sendControl(ServerMessage.published(count: stored.count).encoded()) }
        case .ping(let t):
            sink.sendControl(ServerMessage.pong(t: t).encoded())
        case .auth:
            throw ProtocolError(
                .badRequest, "authentication is off on this server (--auth none); no token is needed", failedOp: "auth")
        }
    }

    private func reject(_ error: ProtocolError) {
        environment.metrics.count(error.code)
        environment.logger.debug(
            "request refused", ["conn": connectionID, "code": error.code.rawValue, "message": error.message])
        sink.sendControl(ServerMessage.error(error).encoded())
    }
}
