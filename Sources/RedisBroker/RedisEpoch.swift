import Locking
import Observability

/// What this node knows of Redis's epoch (see `RedisScripts`): the seq floor the current
/// one began with.
///
/// A node learns of a new epoch wherever it shows first: the reply of its own publish or
/// epoch check (on connect, and each idle second), a channel message, or the floor read
/// when its subscriber link reconnects. A higher floor than the one known means Redis
/// lost its data, or may have: it is logged and counted once per node, and the node's
/// highest seen seq rises to the floor, so a later epoch it helps to begin lies above.
final class RedisEpoch: Sendable {
    private let known = Locked<UInt64?>(nil)
    private let watermark: SeqWatermark
    private let metrics: RedisMetrics
    private let logger: Logger

    init(watermark: SeqWatermark, metrics: RedisMetrics, logger: Logger) {
        self.watermark = watermark
        self.metrics = metrics
        self.logger = logger
    }

    /// The floor of the newest epoch the node knows (0 before it knows one).
    var floor: UInt64 { known.withLock { $0 ?? 0 } }

    /// Notes `report`, learnt from `source` (words for the log).
    func observe(_ report: EpochReport, from source: String) {
        let previous: UInt64?? = known.withLock { known in
            guard known.map({ report.floor > $0 }) ?? true else { return .none }
            defer { known = report.floor }
            return .some(known)
        }
        guard case .some(let previous) = previous else { return }
        watermark.raise(to: report.floor)
        switch (previous, report.began) {
        case (nil, .none):
            return
        case (nil, .missingKey):
            logger.info("redis epoch began", ["seq_floor": report.floor, "source": source])
        case (let previous, _):
            metrics.stateResets.increment()
            logger.error(
                "redis lost its data",
                [
                    "previous_seq_floor": previous.map(String.init) ?? "unknown", "seq_floor": report.floor,
                    "cause": report.began == .otherProcess ? "Redis restarted or failed over" : "data gone",
                    "source": source,
                    "lost": "what Redis did not keep; seqs continue above the new floor, beyond any given before",
                ])
        }
    }
}

/// The highest seq this node has seen, from its publishes, from Redis and from epoch
/// floors: the hint it gives when it begins a new epoch, in case clocks went backwards.
final class SeqWatermark: Sendable {
    private let highest = Locked<UInt64>(0)

    /// Raises the watermark to `seq` if it is higher.
    func raise(to seq: UInt64) { highest.withLock { $0 = max($0, seq) } }

    /// The highest seq seen.
    var value: UInt64 { highest.withLock { $0 } }
}
