import StreamCore

extension RedisSubscriberLink {
    /// One connection of the subscriber link: the channels it holds and the `PING`s in
    /// flight. It lives on the link's thread.
    struct Session {
        private typealias Confirmation = CheckedContinuation<Result<Void, RedisFailure>, Never>

        private struct Ping {
            let sentAt: ContinuousClock.Instant
            let confirmations: [Confirmation]
        }

        /// Channels per `SUBSCRIBE` when subscribing again to everything.
        private static let channelsPerCommand = 1000

        let connection: RedisConnection
        private let node: Node
        private let metrics: RedisMetrics
        private var subscribed: Set<Subject> = []
        private var pings: [Ping] = []
        private var lastHeard = ContinuousClock.now

        init(connection: RedisConnection, node: Node, metrics: RedisMetrics) {
            self.connection = connection
            self.node = node
            self.metrics = metrics
        }

        /// Subscribes to every one of `subjects` (a new connection holds nothing).
        mutating func resubscribe(to subjects: [Subject]) {
            subscribed = Set(subjects)
            for start in stride(from: 0, to: subjects.count, by: Self.channelsPerCommand) {
                let chunk = subjects[start..<min(start + Self.channelsPerCommand, subjects.count)]
                connection.append(RedisCommand(["SUBSCRIBE"] + chunk.map(RedisNames.channel)))
            }
            metrics.subscribes.increment(by: subjects.count)
        }

        /// Subscribes to each noted subject the hub now watches and unsubscribes from
        /// each it no longer does.
        mutating func reconcile(_ noted: Set<Subject>) {
            var adding: [Subject] = []
            var dropping: [Subject] = []
            for subject in noted {
                let wanted = node.isWatched(subject)
                guard wanted != subscribed.contains(subject) else { continue }
                if wanted {
                    subscribed.insert(subject)
                    adding.append(subject)
                } else {
                    subscribed.remove(subject)
                    dropping.append(subject)
                }
            }
            if !adding.isEmpty { connection.append(RedisCommand(["SUBSCRIBE"] + adding.map(RedisNames.channel))) }
            if !dropping.isEmpty { connection.append(RedisCommand(["UNSUBSCRIBE"] + dropping.map(RedisNames.channel))) }
            metrics.subscribes.increment(by: adding.count)
            metrics.unsubscribes.increment(by: dropping.count)
            dropping.forEach(node.onDrop)
        }

        /// Sends a `PING` that resolves `confirmations` when answered; with none, only
        /// after a second of silence, to check the connection.
        mutating func ping(
            for confirmations: [CheckedContinuation<Result<Void, RedisFailure>, Never>], timeout: Duration
        ) {
            let now = ContinuousClock.now
            guard !confirmations.isEmpty || (pings.isEmpty && now - lastHeard > .seconds(1)) else { return }
            connection.append(RedisCommand("PING"))
            pings.append(Ping(sentAt: now, confirmations: confirmations))
        }

        /// Reads what arrived and handles every whole reply.
        mutating func readReplies() throws(RedisFailure) {
            try connection.readAvailable()
            lastHeard = .now
            while let reply = try connection.bufferedReply() { handle(reply) }
        }

        /// Fails when the oldest `PING` has waited longer than `timeout`.
        func checkPings(timeout: Duration) throws(RedisFailure) {
            guard let oldest = pings.first, ContinuousClock.now - oldest.sentAt > timeout else { return }
            throw RedisFailure("no answer to PING within \(timeout)")
        }

        /// The connection failed: every waiting confirmation fails with it.
        mutating func failPings(_ failure: RedisFailure) {
            for confirmation in pings.flatMap(\.confirmations) { confirmation.resume(returning: .failure(failure)) }
            pings.removeAll()
        }

        private mutating func handle(_ reply: RedisReply) {
            if reply == .string(Array("PONG".utf8)) { return answerPing() }
            guard let parts = reply.elements, let kind = parts.first?.bytes else { return }
            switch String(decoding: kind, as: UTF8.self) {
            case "message":
                guard parts.count == 3, let channel = parts[1].bytes, let payload = parts[2].bytes,
                    let subject = RedisNames.subject(ofChannel: channel)
                else { return }
                node.onMessage(subject, payload)
            case "subscribe", "unsubscribe":
                if parts.count == 3, let count = parts[2].integer { metrics.channels.set(Int(count)) }
            case "pong":
                answerPing()
            default:
                return
            }
        }

        /// Answers the oldest `PING` (a plain `PONG` outside subscribed mode, an array in it).
        private mutating func answerPing() {
            guard !pings.isEmpty else { return }
            for confirmation in pings.removeFirst().confirmations { confirmation.resume(returning: .success(())) }
        }
    }
}
