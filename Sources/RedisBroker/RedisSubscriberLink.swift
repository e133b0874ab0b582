import Foundation
import Locking
import LocstreamProtocol
import Observability
import StreamCore

/// The node's one subscriber connection to Redis, on a thread of its own.
///
/// It holds one channel subscription per subject the hub watches, however many local
/// clients watch it: the hub notes each subject whose first subscriber arrives or last
/// one leaves (`noteInterest`), and the thread, woken through a pipe, asks the hub
/// whether the subject is still watched and subscribes or unsubscribes to match.
/// `confirm` waits until everything noted before it is in force: the thread sends a
/// `PING` after the subscribe commands, and Redis answers it only after them.
///
/// Messages are handed to `onMessage` on this thread, in Redis's order. When the
/// connection fails, the thread reconnects with capped backoff and subscribes again to
/// everything the hub watches. A `PING` is sent after a second of silence, and no
/// answer within the timeout counts as a failure, so a hung Redis is noticed too.
final class RedisSubscriberLink: Sendable {
    private typealias Confirmation = CheckedContinuation<Result<Void, RedisFailure>, Never>

    private struct State {
        var noted: Set<Subject> = []
        var confirmations: [Confirmation] = []
    }

    /// What the link needs from its node.
    struct Node: Sendable {
        /// Whether some local client watches the subject now (the hub).
        let isWatched: @Sendable (Subject) -> Bool
        /// Every subject local clients watch now (the hub).
        let watchedSubjects: @Sendable () -> [Subject]
        /// A message on the channel of a subject.
        let onMessage: @Sendable (Subject, [UInt8]) -> Void
        /// The link unsubscribed from a subject's channel.
        let onDrop: @Sendable (Subject) -> Void
        /// A new connection, before it subscribes: the node may read from it (what it
        /// missed while the link was down).
        let onConnect: @Sendable (RedisConnection) throws(RedisFailure) -> Void
        /// The link connected (`true`) or lost its connection.
        let onStateChange: @Sendable (Bool) -> Void
    }

    private let endpoint: RedisEndpoint
    private let timeout: Duration
    private let logger: Logger
    private let metrics: RedisMetrics
    private let state = Locked(State())
    private let link = LinkThread(name: "redis-subscribe")

    /// A link to `endpoint`; each read or write, and each `PING`, gives up after `timeout`.
    init(endpoint: RedisEndpoint, timeout: Duration, logger: Logger, metrics: RedisMetrics) {
        self.endpoint = endpoint
        self.timeout = timeout
        self.logger = logger
        self.metrics = metrics
    }

    /// Starts the thread, serving `node`.
    func start(serving node: Node) {
        link.start { [self] in self.serve(node) }
    }

    /// Stops the thread; waiting confirmations fail.
    func stop() {
        link.stop()
    }

    /// Whether the connection is open.
    var isUp: Bool { link.isUp }

    /// Notes that `subject` gained its first or lost its last local subscriber. The hub
    /// calls it under its lock: it records the subject and wakes the thread.
    func noteInterest(_ subject: Subject) {
        let first = state.withLock { state in
            defer { state.noted.insert(subject) }
            return state.noted.isEmpty
        }
        if first { link.wakePipe.wake() }
    }

    /// Returns once every subject noted before the call is subscribed (or dropped).
    func confirm() async throws(RedisFailure) {
        let result = await withCheckedContinuation { (continuation: Confirmation) in
            if let refusal = link.refusal {
                continuation.resume(returning: .failure(refusal))
                return
            }
            state.withLock { $0.confirmations.append(continuation) }
            link.wakePipe.wake()
        }
        try result.get()
    }

    private func serve(_ node: Node) {
        var backoff = Backoff(initial: .milliseconds(100), cap: .seconds(2))
        while !link.isStopped {
            do {
                let connection = try RedisConnection(endpoint, timeout: timeout)
                try node.onConnect(connection)
                var session = Session(connection: connection, node: node, metrics: metrics)
                state.withLock { $0.noted.removeAll() }
                session.resubscribe(to: node.watchedSubjects())
                try connection.flush()
                backoff.reset()
                setUp(true, because: "connected", node: node)
                let failure = run(&session)
                setUp(false, because: failure.description, node: node)
            } catch {
                setUp(false, because: error.description, node: node)
                Thread.sleep(forTimeInterval: backoff.take().seconds)
            }
        }
        failConfirmations(RedisFailure("the Redis link stopped"))
    }

    /// Serves one connection until it fails or the link stops.
    private func run(_ session: inout Session) -> RedisFailure {
        while true {
            let readable = link.wakePipe.wait(for: session.connection.fileDescriptor, milliseconds: 250)
            let (noted, confirmations) = state.withLock { state in
                defer {
                    state.noted.removeAll()
                    state.confirmations.removeAll()
                }
                return (state.noted, state.confirmations)
            }
            if link.isStopped {
                for confirmation in confirmations {
                    confirmation.resume(returning: .failure(RedisFailure("the Redis link stopped")))
                }
                return RedisFailure("stopped")
            }
            do {
                session.reconcile(noted)
                session.ping(for: confirmations, timeout: timeout)
                try session.connection.flush()
                if readable { try session.readReplies() }
                try session.checkPings(timeout: timeout)
            } catch {
                session.failPings(error)
                return error
            }
        }
    }

    private func setUp(_ up: Bool, because reason: String, node: Node) {
        let news = link.set(up: up, reason: reason)
        if up { return node.onStateChange(true) }
        failConfirmations(RedisFailure("Redis is unreachable (\(reason))"))
        guard news, !link.isStopped else { return }
        logger.warning("redis link down", ["link": "subscriber", "redis": endpoint.description, "reason": reason])
        node.onStateChange(false)
    }

    private func failConfirmations(_ failure: RedisFailure) {
        let waiting = state.withLock { state in
            defer { state.confirmations.removeAll() }
            return state.confirmations
        }
        for confirmation in waiting { confirmation.resume(returning: .failure(failure)) }
    }
}
