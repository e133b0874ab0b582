import Locking
import Observability

/// Opens client WebSocket connections (`ws://` and `wss://`) on one lws service thread.
///
/// Many connections share the client; each is a `WebSocketConnection`, the same type
/// the server hands out. Frames a client sends are masked and written one per
/// WRITEABLE callback by lws.
public final class WebSocketClient: Sendable {
    private let mailbox: LoopMailbox<ClientCommand>
    /// The service thread as an executor: its connections' `executor`.
    private let executor: ServiceExecutor
    private let stopFlag = Locked(false)
    private let stopped = OneShot<Void>()
    private let nextID = Locked<UInt64>(1)

    private init() {
        mailbox = LoopMailbox<ClientCommand>()
        executor = ServiceExecutor(mailbox: mailbox)
    }

    /// Starts a client. `caFile` is a PEM bundle trusted for `wss://`, beside the system's;
    /// `eventLoop` is what waits on its sockets.
    public static func start(
        caFile: String? = nil, eventLoop: EventLoopKind = .poll,
        logger: Logger = Logger(level: .error, component: "client")
    ) async throws(TransportError) -> WebSocketClient {
        let client = WebSocketClient()
        let started = OneShot<Result<Int, TransportError>>()
        let (mailbox, executor) = (client.mailbox, client.executor)
        ServiceThread.run(
            name: "lws-client", waker: mailbox.waker, stop: client.stopFlag, started: started, stopped: client.stopped
        ) {
            ClientLoop(mailbox: mailbox, executor: executor, caFile: caFile, eventLoop: eventLoop, logger: logger)
        }
        guard let result = await started.value() else { throw .contextCreationFailed("cancelled while starting") }
        _ = try result.get()
        return client
    }

    /// Opens a connection to `url`; returns once the handshake is done.
    public func connect(to url: String, options: ClientConnectOptions = ClientConnectOptions())
        async throws(TransportError) -> WebSocketConnection
    {
        let parsed = try WebSocketURL(url)
        let id = ConnectionID(
            nextID.withLock { next in
                defer { next += 1 }
                return next
            })
        let (mailbox, executor) = (self.mailbox, self.executor)
        let channel = ConnectionChannel(
            id: id, request: UpgradeRequest(path: parsed.pathAndQuery), executor: executor
        ) { mailbox.post($0) }
        let opened = OneShot<Result<Void, TransportError>>()
        mailbox.post(
            command: .connect(ClientConnectRequest(url: parsed, options: options, channel: channel, opened: opened)))
        let timeout = options.timeout
        let outcome = await withTaskGroup(of: Result<Void, TransportError>?.self) { group in
            group.addTask { await opened.value() }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .failure(.connectFailed("timed out after \(timeout)"))
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        switch outcome {
        case .success:
            return WebSocketConnection(channel: channel)
        case .failure(let error):
            channel.close(CloseRequest(code: 1000))
            throw error
        case nil:
            channel.close(CloseRequest(code: 1000))
            throw .connectFailed("cancelled")
        }
    }

    /// Closes every connection and stops the service thread.
    public func shutdown() async {
        stopFlag.withLock { $0 = true }
        mailbox.waker.wake()
        _ = await stopped.value()
    }
}
