import Glibc
import Locking

/// A WebSocket and HTTP server on libwebsockets, on `threads` service threads.
///
/// `start()` binds and returns the port. Each accepted WebSocket is handed to the
/// delegate's `open(_:)`, and its messages to the `MessageHandler` that returns, in a
/// task that runs while messages wait and is cancelled when the connection closes;
/// each HTTP request to `respond(to:)`. With one thread its lws context listens; with
/// more, a `SocketAcceptor` listens and deals the sockets out in turn, each thread
/// running a context of its own. `shutdown` refuses new upgrades, closes every WebSocket
/// with 1001 after flushing what it can, and stops the threads.
public final class WebSocketServer: Sendable {
    private let configuration: ServerConfiguration
    private let delegate: any WebSocketServerDelegate
    private let threads: [ServiceThreadHandle]
    private let counts = ConnectionCounts()
    private let acceptor = Locked<SocketAcceptor?>(nil)

    /// A server that will listen as `configuration` says and hand traffic to `delegate`.
    public init(configuration: ServerConfiguration, delegate: any WebSocketServerDelegate) {
        self.configuration = configuration
        self.delegate = delegate
        let count = max(configuration.threads, 1)
        threads = (0..<count).map { ServiceThreadHandle(shard: ServiceShard(index: $0, count: count)) }
    }

    /// Binds and starts serving; returns the port it listens on.
    public func start() async throws(TransportError) -> Int {
        guard threads.count > 1 else { return try await startThread(threads[0]) }
        let acceptor = try SocketAcceptor.listen(host: configuration.host, port: configuration.port).get()
        for thread in threads {
            do {
                _ = try await startThread(thread)
            } catch {
                await acceptor.stop()
                await stopThreads()
                throw error
            }
        }
        let threads = self.threads
        acceptor.start(threads: threads.count, logger: configuration.logger) { descriptor, index in
            threads[index].mailbox.post(command: .adopt(descriptor))
        }
        self.acceptor.withLock { $0 = acceptor }
        return acceptor.port
    }

    private func startThread(_ thread: ServiceThreadHandle) async throws(TransportError) -> Int {
        let configuration = self.configuration
        let delegate = self.delegate
        let counts = self.counts
        ServiceThread.run(
            name: "lws-server", waker: thread.mailbox.waker, stop: thread.stopFlag, started: thread.started,
            stopped: thread.stopped
        ) {
            ServerLoop(
                configuration: configuration, delegate: delegate, mailbox: thread.mailbox, shard: thread.shard,
                counts: counts, drained: thread.drained)
        }
        guard let result = await thread.started.value() else {
            throw .contextCreationFailed("cancelled while starting")
        }
        return try result.get()
    }

    /// The number of open WebSocket connections.
    public var openWebSocketCount: Int { counts.total }

    /// Refuses new upgrades, closes every WebSocket with `close` once its queue is
    /// written, waits for them up to `timeout`, then stops accepting and the threads.
    public func shutdown(close: CloseRequest = CloseRequest(code: 1001, reason: "going away"), timeout: Duration) async
    {
        let threads = self.threads
        for thread in threads { thread.mailbox.post(command: .drain(close)) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for thread in threads { _ = await thread.drained.value() }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
        if let acceptor = acceptor.withLock({ $0 }) { await acceptor.stop() }
        await stopThreads()
    }

    /// Stops every started thread, then closes the sockets handed to one too late.
    private func stopThreads() async {
        for thread in threads {
            thread.stopFlag.withLock { $0 = true }
            thread.mailbox.waker.wake()
        }
        for thread in threads where thread.started.isFulfilled {
            _ = await thread.stopped.value()
            for case .adopt(let descriptor) in thread.mailbox.drain()?.commands ?? [] {
                Glibc.close(descriptor)
            }
        }
    }
}

/// What other threads hold of one service thread: its mailbox and the signals of its
/// life (started, drained, stopped).
private struct ServiceThreadHandle: Sendable {
    let shard: ServiceShard
    let mailbox = LoopMailbox<ServerCommand>()
    let stopFlag = Locked(false)
    let started = OneShot<Result<Int, TransportError>>()
    let stopped = OneShot<Void>()
    let drained = OneShot<Void>()
}
