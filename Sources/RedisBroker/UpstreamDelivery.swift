import Locking
import LocstreamProtocol
import Observability
import StreamCore

/// Hands the updates heard on Redis channels to the hub, on the subscriber thread.
///
/// A device channel's copy goes to the device's subscribers, a cell channel's copy to
/// the area subscriptions it enters, stays in or leaves. An update that changes cell
/// travels on both cells' channels, one right after the other, so the second copy is
/// recognised by its device and seq and dropped. A seq gap on a watched device's
/// channel (after an outage, say) is logged and counted as missed updates.
final class UpstreamDelivery: Sendable {
    private struct Tracker {
        var lastSeq: [String: UInt64] = [:]
        var lastAreaCopy: (device: String, seq: UInt64)?
    }

    private let hub: Hub
    private let tracker = Locked(Tracker())
    private let watermark: SeqWatermark
    private let metrics: RedisMetrics
    private let logger: Logger

    init(hub: Hub, watermark: SeqWatermark, metrics: RedisMetrics, logger: Logger) {
        self.hub = hub
        self.watermark = watermark
        self.metrics = metrics
        self.logger = logger
    }

    /// A message on `subject`'s channel.
    func receive(_ subject: Subject, _ payload: [UInt8]) {
        let stored: StoredUpdate
        do {
            stored = try StoredUpdate(payload: payload)
        } catch {
            metrics.errors.increment()
            logger.warning(
                "unreadable redis message", ["channel": RedisNames.channel(subject), "reason": error.description])
            return
        }
        let location = stored.update.location
        watermark.raise(to: location.seq)
        switch subject {
        case .device:
            countGap(before: location)
            hub.deliver(stored.update, to: .deviceWatchers)
        case .cell:
            let firstCopy = tracker.withLock { tracker in
                if let last = tracker.lastAreaCopy, last.device == location.device, last.seq == location.seq {
                    return false
                }
                tracker.lastAreaCopy = (location.device, location.seq)
                return true
            }
            if firstCopy { hub.deliver(stored.update, previous: stored.previousLocation, to: .areaWatchers) }
        }
    }

    /// The node stopped watching `subject`: its seqs are no longer followed.
    func forget(_ subject: Subject) {
        guard case .device(let device) = subject else { return }
        tracker.withLock { _ = $0.lastSeq.removeValue(forKey: device) }
    }

    /// The subscriber link is back after a loss: every followed device whose seq in
    /// Redis moved on meanwhile missed those updates. They are logged and counted now
    /// (later gaps count only what comes after), so a device that stays quiet after
    /// the outage does not hide its loss. Clients get them back by resuming with `since`.
    func countMissed(on connection: RedisConnection) throws(RedisFailure) {
        let followed = tracker.withLock { Array($0.lastSeq) }
        guard !followed.isEmpty else { return }
        for (device, _) in followed { connection.append(RedisCommand("GET", RedisNames.seqKey(device))) }
        var current: [String: UInt64] = [:]
        for (device, _) in followed {
            if let seq = try connection.nextReply().integer { current[device] = UInt64(max(seq, 0)) }
        }
        let missed = tracker.withLock { tracker in
            followed.compactMap { device, seen -> (String, UInt64, UInt64)? in
                guard let now = current[device], now > seen else { return nil }
                tracker.lastSeq[device] = max(tracker.lastSeq[device] ?? 0, now)
                return (device, seen, now)
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

    /// Redis lost its data and seqs jump to the floor: gaps from here on are not losses.
    func forgetSeqs() {
        tracker.withLock { $0.lastSeq.removeAll() }
    }

    private func countGap(before location: Location) {
        let last = tracker.withLock { tracker in
            defer { tracker.lastSeq[location.device] = max(tracker.lastSeq[location.device] ?? 0, location.seq) }
            return tracker.lastSeq[location.device]
        }
        guard let last, location.seq > last + 1 else { return }
        metrics.missedUpdates.increment(by: Int(location.seq - last - 1))
        logger.warning(
            "missed updates",
            ["device": location.device, "first_missed_seq": last + 1, "last_missed_seq": location.seq - 1])
    }
}

/// The highest seq this node has seen, from its publishes and from Redis: where seqs
/// continue when Redis comes back without its data.
final class SeqWatermark: Sendable {
    private let highest = Locked<UInt64>(0)

    /// Raises the watermark to `seq` if it is higher.
    func raise(to seq: UInt64) { highest.withLock { $0 = max($0, seq) } }

    /// The highest seq seen.
    var value: UInt64 { highest.withLock { $0 } }
}
