import Locking
import WebSocketTransport

/// Publishes the bench's updates on schedule: `rate` per second in total, update `n` for
/// device `n mod D`, sent as one batch per cycle. Each cycle gets a millisecond of its own
/// as `ts`, and the microsecond it was stamped goes to `SendTimes`.
struct Publisher: Sendable {
    /// The publisher connections; device `d` always goes through `d mod P`, so each device's
    /// updates stay in order.
    let connections: [WebSocketConnection]
    let encoder: PublishEncoder
    let devices: Int
    let rate: Double
    let duration: Int
    let cycle: Duration
    /// How many subscribers watch each device: the frames one update should produce.
    let watchers: [Int]
    let shared: BenchShared
    /// Queued bytes above which a connection's share of a cycle is skipped, not queued.
    private let highWater = 8 << 20

    init(
        connections: [WebSocketConnection], encoder: PublishEncoder, devices: Int, rate: Double, duration: Int,
        cycle: Duration, watchers: [Int], shared: BenchShared
    ) {
        self.connections = connections
        self.encoder = encoder
        self.devices = devices
        self.rate = rate
        self.duration = duration
        self.cycle = cycle
        self.watchers = watchers
        self.shared = shared
    }

    /// Publishes from `originMicros` (wall clock) for `duration` seconds; returns how many
    /// locations went out per device.
    func run(originMicros: Int64) async -> [Int] {
        var published = [Int](repeating: 0, count: devices)
        let total = Int((rate * Double(duration)).rounded(.down))
        let hardEnd = originMicros + Int64(duration + 1) * 1_000_000
        let start = ContinuousClock.now
        var sent = 0
        var lastTs: Int64 = -1
        var cycles = 0
        while sent < total, !Task.isCancelled {
            let now = WallClock.micros()
            if now >= hardEnd { break }
            let due = min(total, Int(Double(max(0, now - originMicros)) * rate / 1e6) + 1)
            if due > sent, now / 1000 != lastTs {
                lastTs = now / 1000
                shared.sendTimes.record(micros: now)
                publish(updates: sent..<due, micros: now, published: &published)
                sent = due
            }
            cycles += 1
            try? await Task.sleep(until: start + cycle * cycles, clock: .continuous)
        }
        return published
    }

    private func publish(updates: Range<Int>, micros: Int64, published: inout [Int]) {
        var shares = [[Int]](repeating: [], count: connections.count)
        for number in updates {
            let device = number % devices
            shares[device % connections.count].append(device)
        }
        var expected = 0
        var count = 0
        var skipped = 0
        for (index, share) in shares.enumerated() where !share.isEmpty {
            let connection = connections[index]
            guard connection.queuedBytes < highWater else {
                skipped += share.count
                continue
            }
            var sentAll = true
            for message in encoder.encode(share, ts: micros / 1000) where sentAll {
                sentAll = connection.send(OutboundFrame(body: message.bytes))
            }
            guard sentAll else {
                skipped += share.count
                continue
            }
            for device in share {
                published[device] += 1
                expected += watchers[device]
            }
            count += share.count
        }
        shared.tally.withLock { tally in
            tally.publishSkipped += skipped
            _ = tally.withSecond(micros / 1_000_000) { second in
                second.published += count
                second.expected += expected
            }
        }
    }
}
