import Foundation
import Locking
import LocstreamProtocol
import Observability
import StreamCore

/// The broker that shares publications, last-known positions and history between
/// nodes through Redis (`--broker redis`).
///
/// Publishing runs one Lua script (`RedisScripts.publish`) over the command link, so
/// seq, last-known position, geo index, history and channel messages change in one
/// atomic step and every node sees one order per device. The node does not deliver
/// its own publications directly: they come back on the subscriber link like everyone
/// else's, so all subscribers everywhere see the same order. The subscriber link holds
/// one channel per watched device and per grid cell local areas cover.
///
/// When Redis goes away, both links reconnect by themselves; meanwhile operations fail
/// with a clear error, `isReachable` is false, and clients stay connected. A publish
/// whose reply never came fails with an unknown outcome. When Redis loses its data
/// (emptied, flushed, restarted, failed over), a new epoch begins with a seq floor
/// above every seq given before (see `RedisScripts`), so no seq repeats or goes
/// backwards, whichever nodes are alive; `RedisEpoch` logs and counts it.
public final class RedisBroker: Broker {
    public let grid: GeoGrid
    private let endpoint: RedisEndpoint
    private let historySize: Int
    private let maxDevices: Int
    private let commands: RedisCommandLink
    private let subscriber: RedisSubscriberLink
    private let delivery: UpstreamDelivery
    private let watermark: SeqWatermark
    private let epoch: RedisEpoch
    /// The `run_id` of the Redis process the command link is connected to.
    private let runID: Locked<String>
    private let metrics: RedisMetrics
    private let logger: Logger

    /// A broker on `endpoint` keeping `historySize` updates per device and at most
    /// `maxDevices` devices in the whole deployment, whose every
    /// Redis read or write gives up after `timeout`; areas are indexed on `grid`
    /// (every node of a deployment must use the same). Call `start` to connect.
    public init(
        endpoint: RedisEndpoint, historySize: Int, maxDevices: Int = 100_000, timeout: Duration,
        grid: GeoGrid = GeoGrid(),
        registry: MetricsRegistry, logger: Logger
    ) {
        let metrics = RedisMetrics(registry: registry)
        let subscriber = RedisSubscriberLink(endpoint: endpoint, timeout: timeout, logger: logger, metrics: metrics)
        let watermark = SeqWatermark()
        let epoch = RedisEpoch(watermark: watermark, metrics: metrics, logger: logger)
        let runID = Locked("")
        let delivery = UpstreamDelivery(
            grid: grid, watermark: watermark, epoch: epoch, metrics: metrics, logger: logger)
        self.grid = grid
        self.watermark = watermark
        self.epoch = epoch
        self.runID = runID
        self.delivery = delivery
        self.endpoint = endpoint
        self.historySize = historySize
        self.maxDevices = maxDevices
        self.subscriber = subscriber
        self.metrics = metrics
        self.logger = logger
        commands = RedisCommandLink(
            endpoint: endpoint, timeout: timeout, logger: logger,
            onConnect: { connection throws(RedisFailure) in
                try Self.prepare(connection, runID: runID, epoch: epoch, watermark: watermark)
            },
            onIdle: { connection throws(RedisFailure) in
                try Self.checkEpoch(on: connection, runID: runID.withLock { $0 }, epoch: epoch, watermark: watermark)
            },
            onStateChange: { up in Self.linkChanged(up, link: "commands", metrics: metrics, logger: logger) })
    }

    public var followsInterest: Bool { true }

    /// Opens both links, reporting what the subscriber link hears to `events`; they
    /// keep reconnecting until `close`.
    public func run(reporting events: any BrokerEventHandler) {
        commands.start()
        let delivery = self.delivery
        let metrics = self.metrics
        let logger = self.logger
        subscriber.start(
            serving: RedisSubscriberLink.Node(
                isWatched: events.isWatched, watchedSubjects: { events.watchedSubjects },
                onMessage: { subject, payload in delivery.receive(subject, payload, reportingTo: events) },
                onDrop: { subject in delivery.forget(subject, watchedBy: events) }, onConnect: delivery.countMissed,
                onStateChange: { up in Self.linkChanged(up, link: "subscriber", metrics: metrics, logger: logger) }))
    }

    /// Subscribes to or unsubscribes from `subject`'s channel, on the subscriber link.
    public func interestChanged(_ subject: Subject) {
        subscriber.noteInterest(subject)
    }

    /// Closes both links; operations fail from then on.
    public func close() {
        commands.stop()
        subscriber.stop()
    }

    public var isReachable: Bool { commands.isUp && subscriber.isUp }

    /// Returns once Redis has run the publish script, confirmed or not: Redis is the store.
    public func publish(_ locations: [Location], confirmed: Bool) async throws(BrokerError) -> [EncodedLocation] {
        var arguments = Self.epochArguments(runID: runID.withLock { $0 }, watermark: watermark)
        arguments.append(Array(String(historySize).utf8))
        arguments.append(Array(String(maxDevices).utf8))
        arguments.reserveCapacity(arguments.count + 6 * locations.count)
        for location in locations {
            let template = EncodedLocationTemplate(location)
            let position = PositionLine(location, cell: grid.cell(lat: location.lat, lon: location.lon))
            arguments += [
                Array(location.device.utf8), template.head, template.tail, Array(position.text.utf8),
                Array("\(location.lon)".utf8), Array("\(location.lat)".utf8),
            ]
        }
        let reply = try await evaluate(RedisScripts.publish, arguments, doing: "publish")
        if PublishReply.refusesDevices(reply) {
            if let report = try? EpochReport(reply.elements?[...] ?? []) { epoch.observe(report, from: "publish") }
            throw .deviceLimit(maxDevices)
        }
        let published: PublishReply
        do {
            published = try PublishReply(reply, count: locations.count)
        } catch {
            throw failed("publish", error)
        }
        epoch.observe(published.epoch, from: "publish")
        return zip(locations, published.seqs).map { location, seq in
            var stamped = location
            stamped.seq = seq
            watermark.raise(to: seq)
            return EncodedLocation(stamped)
        }
    }

    public func lastKnown(_ devices: [String]) async throws(BrokerError) -> [EncodedLocation] {
        guard !devices.isEmpty else { return [] }
        let delivered = delivery.delivered.delivered(of: devices)
        let reply = try await run(RedisCommand(["HMGET", RedisNames.last] + devices), doing: "read last positions")
        let stored = try decode(reply.elements?.compactMap(\.bytes) ?? [], doing: "read last positions").map(\.update)
        return DeliveredPositions.newest(stored: stored, delivered: delivered)
    }

    public func lastKnown(in area: GeoArea) async throws(BrokerError) -> [EncodedLocation] {
        let delivered = delivery.delivered.delivered(in: area)
        let circle = CoveringCircle(area)
        let arguments = ["\(circle.lon)", "\(circle.lat)", "\(circle.radiusMeters)", circle.reachesPolar ? "1" : "0"]
        let reply = try await evaluate(RedisScripts.snapshot, arguments.map { Array($0.utf8) }, doing: "read an area")
        let stored = try decode(reply.elements?.compactMap(\.bytes) ?? [], doing: "read an area").map(\.update)
        return DeliveredPositions.newest(stored: stored, delivered: delivered).filter { area.contains($0.location) }
    }

    public func replay(_ device: String, after seq: UInt64) async throws(BrokerError) -> Replay {
        let first = "0-\(min(seq, UInt64(1) << 53) + 1)"
        let reply = try await evaluate(
            RedisScripts.replay, [Array(device.utf8), Array(first.utf8)], doing: "read history")
        guard let parts = reply.elements, let latest = parts.first?.integer else {
            throw failed("read history", "unexpected reply from Redis")
        }
        var updates: [EncodedLocation] = []
        for body in parts.dropFirst().compactMap(\.bytes) {
            do {
                updates.append(try EncodedLocation(body: body))
            } catch {
                throw failed("read history", "unreadable history entry: \(error.message)")
            }
        }
        return Replay(updates: updates, latestSeq: UInt64(latest))
    }

    public func confirmInterest() async throws(BrokerError) {
        do {
            try await subscriber.confirm()
        } catch {
            throw failed("subscribe", error.description)
        }
    }

    /// Runs `script`, loading it again if Redis lost its script cache.
    func evaluate(_ script: RedisScript, _ arguments: [[UInt8]], doing what: String)
        async throws(BrokerError) -> RedisReply
    {
        let reply = try await run(script.evalSHA(arguments), doing: what)
        guard reply.errorMessage?.hasPrefix("NOSCRIPT") == true else { return reply }
        return try await run(script.eval(arguments), doing: what)
    }

    /// Runs one command; an error reply or a lost link is a `BrokerError`.
    private func run(_ command: RedisCommand, doing what: String) async throws(BrokerError) -> RedisReply {
        let replies: [RedisReply]
        do throws(RedisFailure) {
            replies = try await commands.run([command])
        } catch {
            throw failed(what, error)
        }
        let reply = replies[0]
        if let message = reply.errorMessage, !message.hasPrefix("NOSCRIPT") {
            throw failed(what, "Redis refused: \(message)")
        }
        return reply
    }

    func decode(_ entries: [[UInt8]], doing what: String) throws(BrokerError) -> [StoredUpdate] {
        var updates: [StoredUpdate] = []
        for entry in entries {
            do {
                updates.append(try StoredUpdate(payload: entry))
            } catch {
                throw failed(what, error.description)
            }
        }
        return updates
    }

    /// Counts and logs a failed operation and returns its error.
    func failed(_ what: String, _ reason: String) -> BrokerError {
        failed(what, RedisFailure(reason))
    }

    /// Counts and logs a failed operation and returns its error, which keeps whether
    /// Redis may have run it.
    private func failed(_ what: String, _ failure: RedisFailure) -> BrokerError {
        metrics.errors.increment()
        logger.warning(
            "broker operation failed",
            [
                "operation": what, "redis": endpoint.description, "reason": failure.description,
                "outcome": failure.outcomeUnknown ? "unknown" : "not run",
            ])
        return BrokerError("cannot \(what): \(failure.description)", outcomeUnknown: failure.outcomeUnknown)
    }

    /// Loads the scripts on a new command connection, learns which Redis process it
    /// reaches, and checks the epoch: one begun in another process (a restart, a
    /// failover) or none at all begins a new one before any publish.
    private static func prepare(
        _ connection: RedisConnection, runID: Locked<String>, epoch: RedisEpoch, watermark: SeqWatermark
    ) throws(RedisFailure) {
        for script in RedisScripts.all {
            if let message = try connection.call(RedisCommand("SCRIPT", "LOAD", script.source)).errorMessage {
                throw RedisFailure("SCRIPT LOAD refused: \(message)")
            }
        }
        let info = try connection.call(RedisCommand("INFO", "server"))
        guard let id = info.bytes.flatMap(RedisServerInfo.runID) else {
            throw RedisFailure("cannot read run_id from INFO server: \(info.errorMessage ?? "no run_id")")
        }
        runID.withLock { $0 = id }
        try checkEpoch(on: connection, runID: id, epoch: epoch, watermark: watermark)
    }

    /// Runs the epoch script on `connection` (of Redis process `runID`) and reports
    /// what it found.
    private static func checkEpoch(
        on connection: RedisConnection, runID: String, epoch: RedisEpoch, watermark: SeqWatermark
    ) throws(RedisFailure) {
        var reply = try connection.call(RedisScripts.epoch.evalSHA(epochArguments(runID: runID, watermark: watermark)))
        if reply.errorMessage?.hasPrefix("NOSCRIPT") == true {
            reply = try connection.call(RedisScripts.epoch.eval(epochArguments(runID: runID, watermark: watermark)))
        }
        if let message = reply.errorMessage { throw RedisFailure("epoch check refused: \(message)") }
        epoch.observe(try EpochReport(reply.elements?[...] ?? []), from: "epoch check")
    }

    /// What a script that may begin an epoch needs from the node: the Redis process it
    /// talks to, its clock in microseconds, and its highest seen seq.
    private static func epochArguments(runID: String, watermark: SeqWatermark) -> [[UInt8]] {
        let micros = UInt64(max(Date().timeIntervalSince1970, 0) * 1_000_000)
        return [Array(runID.utf8), Array(String(micros).utf8), Array(String(watermark.value).utf8)]
    }

    private static func linkChanged(_ up: Bool, link: String, metrics: RedisMetrics, logger: Logger) {
        guard up else { return }
        metrics.connects.increment()
        logger.info("redis link up", ["link": link])
    }
}
