import Foundation
import Locking
import LocstreamProtocol
import Observability

/// Commands to Redis from any task, pipelined over one connection that a thread of its
/// own opens, uses and reopens.
///
/// Callers queue a group of commands and wait; the thread takes everything queued,
/// writes it in one go, then reads the replies in order and hands each group its own.
/// While Redis is unreachable a call fails at once: nothing waits for a connection.
/// Between batches the thread polls the socket, so a connection Redis closed is
/// replaced at once, and after a second of silence it runs the idle check (the broker's
/// epoch check), so a hung Redis is noticed within the timeout.
///
/// A call that fails after its commands were written fails with `outcomeUnknown`:
/// Redis may have run them (a timeout waiting for the reply, say).
final class RedisCommandLink: Sendable {
    private typealias Reply = Result<[RedisReply], RedisFailure>

    private struct Request {
        let commands: [RedisCommand]
        let continuation: CheckedContinuation<Reply, Never>
    }

    private let endpoint: RedisEndpoint
    private let timeout: Duration
    private let queue = Locked<[Request]>([])
    private let link = LinkThread(name: "redis-commands")
    private let logger: Logger
    private let onConnect: @Sendable (RedisConnection) throws(RedisFailure) -> Void
    private let onIdle: @Sendable (RedisConnection) throws(RedisFailure) -> Void
    private let onStateChange: @Sendable (_ up: Bool) -> Void

    /// A link to `endpoint` whose every read and write gives up after `timeout`.
    /// `onConnect` runs on each new connection before any command, `onIdle` after each
    /// second without a command (it must send at least one); `onStateChange` hears each
    /// connect and loss.
    init(
        endpoint: RedisEndpoint, timeout: Duration, logger: Logger,
        onConnect: @escaping @Sendable (RedisConnection) throws(RedisFailure) -> Void,
        onIdle: @escaping @Sendable (RedisConnection) throws(RedisFailure) -> Void,
        onStateChange: @escaping @Sendable (Bool) -> Void
    ) {
        self.endpoint = endpoint
        self.timeout = timeout
        self.logger = logger
        self.onConnect = onConnect
        self.onIdle = onIdle
        self.onStateChange = onStateChange
    }

    /// Starts the link's thread.
    func start() {
        link.start { [self] in self.serve() }
    }

    /// Stops the thread after the commands in flight; later calls fail.
    func stop() {
        link.stop()
    }

    /// Whether the connection is open.
    var isUp: Bool { link.isUp }

    /// Runs `commands` in order, pipelined with whatever else is queued, and returns
    /// their replies (error replies included).
    func run(_ commands: [RedisCommand]) async throws(RedisFailure) -> [RedisReply] {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Reply, Never>) in
            if let refusal = link.refusal {
                continuation.resume(returning: .failure(refusal))
                return
            }
            queue.withLock { $0.append(Request(commands: commands, continuation: continuation)) }
            link.wakePipe.wake()
        }
        return try result.get()
    }

    private func serve() {
        var backoff = Backoff(initial: .milliseconds(100), cap: .seconds(2))
        while !link.isStopped {
            do {
                let connection = try RedisConnection(endpoint, timeout: timeout)
                try onConnect(connection)
                backoff.reset()
                setUp(true, because: "connected")
                setUp(false, because: pump(connection).description)
            } catch {
                setUp(false, because: error.description)
                Thread.sleep(forTimeInterval: backoff.take().seconds)
            }
        }
        failQueued(RedisFailure("the Redis link stopped"))
    }

    /// Serves requests on `connection` until it fails or the link stops.
    private func pump(_ connection: RedisConnection) -> RedisFailure {
        var lastHeard = ContinuousClock.now
        while true {
            let readable = link.wakePipe.wait(for: connection.fileDescriptor, milliseconds: 1000)
            let batch = queue.withLock { queue in
                defer { queue.removeAll() }
                return queue
            }
            if link.isStopped {
                failAll(batch, RedisFailure("the Redis link stopped"))
                return RedisFailure("stopped")
            }
            if batch.isEmpty {
                // Nothing is expected: readable means closed; silence earns a check.
                do throws(RedisFailure) {
                    if readable { try connection.readAvailable() }
                    if ContinuousClock.now - lastHeard > .seconds(1) { try onIdle(connection) }
                } catch {
                    return error
                }
            } else {
                for request in batch { request.commands.forEach(connection.append) }
                if let failure = serve(batch, on: connection) { return failure }
            }
            lastHeard = .now
        }
    }

    /// Writes `batch`, which `connection` holds queued, and hands each request its
    /// replies; on a failure, every request not yet answered fails with an unknown
    /// outcome, and the failure is returned.
    private func serve(_ batch: [Request], on connection: RedisConnection) -> RedisFailure? {
        var answered = 0
        do throws(RedisFailure) {
            try connection.flush()
            for request in batch {
                let replies = try request.commands.map { _ throws(RedisFailure) in try connection.nextReply() }
                request.continuation.resume(returning: .success(replies))
                answered += 1
            }
            return nil
        } catch {
            failAll(batch[answered...], RedisFailure(error.description, outcomeUnknown: true))
            return error
        }
    }

    private func setUp(_ up: Bool, because reason: String) {
        let news = link.set(up: up, reason: reason)
        if up { return onStateChange(true) }
        failQueued(RedisFailure("Redis is unreachable (\(reason))"))
        guard news, !link.isStopped else { return }
        logger.warning("redis link down", ["link": "commands", "redis": endpoint.description, "reason": reason])
        onStateChange(false)
    }

    private func failQueued(_ failure: RedisFailure) {
        failAll(
            queue.withLock { queue in
                defer { queue.removeAll() }
                return queue
            }, failure)
    }

    private func failAll(_ requests: some Sequence<Request>, _ failure: RedisFailure) {
        for request in requests { request.continuation.resume(returning: .failure(failure)) }
    }
}
