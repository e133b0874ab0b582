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
/// with a clear error, `isReachable` is false, and clients stay connected. Redis that
/// comes back without its data (a new epoch key) gets a seq floor at the highest seq
/// this node has seen, so no seq ever goes backwards.
public final class RedisBroker: Broker {
    /// The hub this broker delivers to; its interest changes drive the subscriptions.
    public let hub: Hub
    private let endpoint: RedisEndpoint
    private let historySize: Int
    private let commands: RedisCommandLink
    private let subscriber: RedisSubscriberLink
    private let delivery: UpstreamDelivery
    private let watermark: SeqWatermark
    private let metrics: RedisMetrics
    private let logger: Logger

    /// A broker on `endpoint` keeping `historySize` updates per device, whose every
    /// Redis read or write gives up after `timeout`; areas are indexed on `grid`
    /// (every node of a deployment must use the same). Call `start` to connect.
    public init(
        endpoint: RedisEndpoint, historySize: Int, timeout: Duration, grid: GeoGrid = GeoGrid(),
        registry: MetricsRegistry, logger: Logger
    ) {
        let metrics = RedisMetrics(registry: registry)
        let subscriber = RedisSubscriberLink(endpoint: endpoint, timeout: timeout, logger: logger, metrics: metrics)
        let hub = Hub(grid: grid, interestChanged: subscriber.noteInterest)
        let watermark = SeqWatermark()
        let epoch = Locked<String?>(nil)
        let delivery = UpstreamDelivery(hub: hub, watermark: watermark, metrics: metrics, logger: logger)
        self.hub = hub
        self.watermark = watermark
        self.delivery = delivery
        self.endpoint = endpoint
        self.historySize = historySize
        self.subscriber = subscriber
        self.metrics = metrics
        self.logger = logger
        commands = RedisCommandLink(
            endpoint: endpoint, timeout: timeout, logger: logger,
            onConnect: { connection throws(RedisFailure) in
                try Self.prepare(
                    connection, epoch: epoch, watermark: watermark, delivery: delivery, metrics: metrics, logger: logger
                )
            },
            onStateChange: { up in Self.linkChanged(up, link: "commands", metrics: metrics, logger: logger) })
    }

    /// Opens both links; they keep reconnecting until `stop`.
    public func start() {
        commands.start()
        let hub = self.hub
        let delivery = self.delivery
        let metrics = self.metrics
        let logger = self.logger
        subscriber.start(
            serving: RedisSubscriberLink.Node(
                isWatched: hub.isWatched, watchedSubjects: { hub.watchedSubjects }, onMessage: delivery.receive,
                onDrop: delivery.forget, onConnect: delivery.countMissed,
                onStateChange: { up in Self.linkChanged(up, link: "subscriber", metrics: metrics, logger: logger) }))
    }

    /// Closes both links; operations fail from then on.
    public func close() {
        commands.stop()
        subscriber.stop()
    }

    public var isReachable: Bool { commands.isUp && subscriber.isUp }

    public func publish(_ locations: [Location]) async throws(BrokerError) -> [EncodedLocation] {
        var arguments: [[UInt8]] = [Array(String(historySize).utf8)]
        arguments.reserveCapacity(1 + 6 * locations.count)
        for location in locations {
            let template = EncodedLocationTemplate(location)
            let position = PositionLine(location, cell: hub.grid.cell(lat: location.lat, lon: location.lon))
            arguments += [
                Array(location.device.utf8), template.head, template.tail, Array(position.text.utf8),
                Array("\(location.lon)".utf8), Array("\(location.lat)".utf8),
            ]
        }
        let reply = try await evaluate(RedisScripts.publish, arguments, doing: "publish")
        guard let seqs = reply.elements?.compactMap(\.integer), seqs.count == locations.count else {
            throw failed("publish", "unexpected reply from Redis")
        }
        return zip(locations, seqs).map { location, seq in
            var stamped = location
            stamped.seq = UInt64(seq)
            watermark.raise(to: stamped.seq)
            return EncodedLocation(stamped)
        }
    }

    public func lastKnown(_ devices: [String]) async throws(BrokerError) -> [EncodedLocation] {
        guard !devices.isEmpty else { return [] }
        let reply = try await run(RedisCommand(["HMGET", RedisNames.last] + devices), doing: "read last positions")
        return try decode(reply.elements?.compactMap(\.bytes) ?? [], doing: "read last positions").map(\.update)
    }

    public func lastKnown(in area: GeoArea) async throws(BrokerError) -> [EncodedLocation] {
        let circle = CoveringCircle(area)
        let arguments = ["\(circle.lon)", "\(circle.lat)", "\(circle.radiusMeters)", circle.reachesPolar ? "1" : "0"]
        let reply = try await evaluate(RedisScripts.snapshot, arguments.map { Array($0.utf8) }, doing: "read an area")
        return try decode(reply.elements?.compactMap(\.bytes) ?? [], doing: "read an area").map(\.update).filter {
            area.contains($0.location)
        }
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
    private func evaluate(_ script: RedisScript, _ arguments: [[UInt8]], doing what: String)
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
            throw failed(what, error.description)
        }
        let reply = replies[0]
        if let message = reply.errorMessage, !message.hasPrefix("NOSCRIPT") {
            throw failed(what, "Redis refused: \(message)")
        }
        return reply
    }

    private func decode(_ entries: [[UInt8]], doing what: String) throws(BrokerError) -> [StoredUpdate] {
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
    private func failed(_ what: String, _ reason: String) -> BrokerError {
        metrics.errors.increment()
        logger.warning("broker operation failed", ["operation": what, "redis": endpoint.description, "reason": reason])
        return BrokerError("cannot \(what): \(reason)")
    }

    /// Loads the scripts on a new command connection and checks the epoch: a changed
    /// one means Redis lost its data, so the seq floor is raised to the highest seq
    /// this node has seen before any publish.
    private static func prepare(
        _ connection: RedisConnection, epoch: Locked<String?>, watermark: SeqWatermark, delivery: UpstreamDelivery,
        metrics: RedisMetrics, logger: Logger
    ) throws(RedisFailure) {
        for script in RedisScripts.all {
            if let message = try connection.call(RedisCommand("SCRIPT", "LOAD", script.source)).errorMessage {
                throw RedisFailure("SCRIPT LOAD refused: \(message)")
            }
        }
        _ = try connection.call(RedisCommand("SET", RedisNames.epoch, UUID().uuidString, "NX"))
        guard let current = try connection.call(RedisCommand("GET", RedisNames.epoch)).bytes else {
            throw RedisFailure("cannot read \(RedisNames.epoch)")
        }
        let now = String(decoding: current, as: UTF8.self)
        let previous = epoch.withLock { epoch in
            defer { epoch = now }
            return epoch
        }
        guard let previous, previous != now else { return }
        let floor = watermark.value
        let reply = try connection.call(RedisScripts.raiseFloor.eval([Array(String(floor).utf8)]))
        if let message = reply.errorMessage { throw RedisFailure("cannot raise the seq floor: \(message)") }
        delivery.forgetSeqs()
        metrics.stateResets.increment()
        logger.error(
            "redis lost its data",
            [
                "previous_epoch": previous, "epoch": now, "seq_floor": floor,
                "lost": "last positions, history and seqs kept before the restart; seqs continue above the floor",
            ])
    }

    private static func linkChanged(_ up: Bool, link: String, metrics: RedisMetrics, logger: Logger) {
        guard up else { return }
        metrics.connects.increment()
        logger.info("redis link up", ["link": link])
    }
}
