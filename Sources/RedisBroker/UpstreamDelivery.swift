import Locking
import LocstreamProtocol
import Observability
import StreamCore

/// Reports the updates heard on Redis channels to the node's `BrokerEventHandler`, on
/// the subscriber thread.
///
/// A device channel's copy goes to the device's subscribers, a cell channel's copy to
/// the area subscriptions it enters, stays in or leaves. An update that changes cell
/// travels on both cells' channels, one right after the other, so the second copy is
/// recognised by its device and seq and dropped. A seq gap on a watched device's
/// channel (after an outage, say) is logged and counted as missed updates, unless the
/// epoch changed in between (each message carries its epoch's floor): that jump is a
/// loss of Redis's data, which `RedisEpoch` reports.
final class UpstreamDelivery: Sendable {
    /// The newest seq heard of a followed device, and the floor of its epoch.
    private struct Heard {
        var seq: UInt64
        var floor: UInt64
    }

    private struct Tracker {
        var lastSeq: [String: Heard] = [:]
        var lastAreaCopy: (device: String, seq: UInt64)?
    }

    private let tracker = Locked(Tracker())
    private let watermark: SeqWatermark
    private let epoch: RedisEpoch
    /// The newest update delivered per watched device, for snapshots.
    let delivered: DeliveredPositions
    private let metrics: RedisMetrics
    private let logger: Logger

    init(grid: GeoGrid, watermark: SeqWatermark, epoch: RedisEpoch, metrics: RedisMetrics, logger: Logger) {
        delivered = DeliveredPositions(grid: grid)
        self.watermark = watermark
        self.epoch = epoch
        self.metrics = metrics
        self.logger = logger
    }

    /// A message on `subject`'s channel, reported to `events`.
    func receive(_ subject: Subject, _ payload: [UInt8], reportingTo events: any BrokerEventHandler) {
        let message: ChannelMessage
        do {
            message = try ChannelMessage(payload: payload)
        } catch {
            metrics.errors.increment()
            logger.warning(
                "unreadable redis message", ["channel": RedisNames.channel(subject), "reason": error.description])
            return
        }
        epoch.observe(EpochReport(floor: message.floor), from: "channel message")
        let stored = message.stored
        let location = stored.update.location
        watermark.raise(to: location.seq)
        switch subject {
        case .device:
            countGap(before: location, floor: message.floor)
            delivered.note(stored.update, isWatched: events.isWatched)
            events.handlePublication(stored.update, previous: nil, to: .deviceWatchers)
        case .cell:
            let firstCopy = tracker.withLock { tracker in
                if let last = tracker.lastAreaCopy, last.device == location.device, last.seq == location.seq {
                    return false
                }
                tracker.lastAreaCopy = (location.device, location.seq)
                return true
            }
            guard firstCopy else { return }
            delivered.note(stored.update, isWatched: events.isWatched)
            events.handlePublication(stored.update, previous: stored.previousLocation, to: .areaWatchers)
        }
    }

    /// The node (`events`) stopped watching `subject`: its seqs are no longer followed.
    func forget(_ subject: Subject, watchedBy events: any BrokerEventHandler) {
        delivered.forget(subject, isWatched: events.isWatched)
        guard case .device(let device) = subject else { return }
        tracker.withLock { _ = $0.lastSeq.removeValue(forKey: device) }
    }

    /// The subscriber link is back after a loss: every followed device whose seq in
    /// Redis moved on meanwhile missed those updates. They are logged and counted now
    /// (later gaps count only what comes after), so a device that stays quiet after
    /// the outage does not hide its loss.
    /// Clients get them back by resuming with `since`. The floor is read last: if a new
    /// epoch began meanwhile, the jump is not counted as missed.
    func countMissed(on connection: RedisConnection) throws(RedisFailure) {
        let followed = tracker.withLock { Array($0.lastSeq) }
        for (device, _) in followed { connection.append(RedisCommand("GET", RedisNames.seqKey(device))) }
        connection.append(RedisCommand("GET", RedisNames.seqFloor))
        var current: [String: UInt64] = [:]
        for (device, _) in followed {
            if let seq = UInt64(seqReply: try connection.nextReply()) { current[device] = seq }
        }
        guard let floor = UInt64(seqReply: try connection.nextReply()) else { return }
        epoch.observe(EpochReport(floor: floor), from: "subscriber reconnect")
        let missed = tracker.withLock { tracker in
            followed.compactMap { device, seen -> (String, UInt64, UInt64)? in
                guard let now = current[device], now > seen.seq, seen.floor == floor else { return nil }
                if now > tracker.lastSeq[device]?.seq ?? 0 { tracker.lastSeq[device] = Heard(seq: now, floor: floor) }
                return (device, seen.seq, now)
            }
        }
        guard !missed.isEmpty else { return }
        let total = missed.reduce(0) { $0 + Int($1.2 - $1.1) }
        metrics.missedUpdates.increment(by: total)
        logger.warning(
            "missed updates while the redis link was down",
            [
                "devices": missed.count, "updates": total,
                "resume": "clients get them back with since, as far as history reaches",
            ])
        for (device, seen, now) in missed.prefix(100) {
            logger.info("missed updates", ["device": device, "first_missed_seq": seen + 1, "last_missed_seq": now])
        }
    }

    private func countGap(before location: Location, floor: UInt64) {
        let heard = tracker.withLock { tracker in
            let heard = tracker.lastSeq[location.device]
            if location.seq > heard?.seq ?? 0 {
                tracker.lastSeq[location.device] = Heard(seq: location.seq, floor: floor)
            }
            return heard
        }
        guard let heard, heard.floor == floor, location.seq > heard.seq + 1 else { return }
        let last = heard.seq
        metrics.missedUpdates.increment(by: Int(location.seq - last - 1))
        logger.warning(
            "missed updates",
            ["device": location.device, "first_missed_seq": last + 1, "last_missed_seq": location.seq - 1])
    }
}
