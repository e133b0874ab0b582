import Locking

/// A WebSocket and HTTP server on libwebsockets, one service thread per server.
///
/// `start()` binds and returns the port. Each accepted WebSocket is handed to the
/// delegate's `serve(_:)` in a task of its own, cancelled when the connection closes;
/// each HTTP request to `respond(to:)`. `shutdown` refuses new upgrades, closes every
/// WebSocket with 1001 after flushing what it can, and stops the thread.
public final class WebSocketServer: Sendable {
    private let configuration: ServerConfiguration
    private let delegate: any WebSocketServerDelegate
    private let mailbox = LoopMailbox<ServerCommand>()
    private let stopFlag = Locked(false)
    private let started = OneShot<Result<Int, TransportError>>()
    private let stopped = OneShot<Void>()
    private let drained = OneShot<Void>()
    private let openSockets = Locked(0)

    /// A server that will listen as `configuration` says and hand traffic to `delegate`.
    public init(configuration: ServerConfiguration, delegate: any WebSocketServerDelegate) {
        self.configuration = configuration
        self.delegate = delegate
    }

    /// Binds and starts serving; returns the port it listens on.
    public func start() async throws(TransportError) -> Int {
        let configuration = self.configuration
        let delegate = self.delegate
        let mailbox = self.mailbox
        let openSockets = self.openSockets
        let drained = self.drained
        ServiceThread.run(
            name: "lws-server", waker: mailbox.waker, stop: stopFlag, started: started, stopped: stopped
        ) {
            ServerLoop(
                configuration: configuration, delegate: delegate, mailbox: mailbox, openSockets: openSockets,
                drained: drained)
        }
        guard let result = await started.value() else { throw .contextCreationFailed("cancelled while starting") }
        return try result.get()
    }

    /// The number of open WebSocket connections.
    public var openWebSocketCount: Int { openSockets.withLock { $0 } }

    /// Refuses new upgrades, closes every WebSocket with `close` once its queue is
    /// written, waits for them up to `timeout`, then stops the service thread.
    public func shutdown(close: CloseRequest = CloseRequest(code: 1001, reason: "going away"), timeout: Duration) async
    {
        mailbox.post(command: .drain(close))
        let drained = self.drained
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = await drained.value() }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
        stopFlag.withLock { $0 = true }
        mailbox.waker.wake()
        _ = await stopped.value()
    }
}
