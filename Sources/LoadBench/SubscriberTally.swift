import Locking

/// One subscriber's measurements not yet merged into the shared `BenchTally`.
///
/// Latencies wait here in a small buffer, all from one Unix second, so the shared lock is
/// taken once per `capacity` frames (or per second) rather than once per frame.
struct SubscriberTally: Sendable {
    static let capacity = 256

    /// Counts since the last merge.
    var counts = DeliveryCounts()
    private var latencies: [Int64] = []
    private var second: Int64 = .min
    private var switchAcks: [Int64] = []

    /// An empty tally.
    init() { latencies.reserveCapacity(Self.capacity) }

    /// Records a latency measured at `micros`; merges first when the second changed or
    /// the buffer is full.
    mutating func recordLatency(_ latency: Int64, at micros: Int64, into shared: Locked<BenchTally>) {
        let now = micros / 1_000_000
        if now != second || latencies.count >= Self.capacity {
            flush(into: shared)
            second = now
        }
        latencies.append(latency)
    }

    /// Records the time a switch took to be acknowledged.
    mutating func recordSwitchAck(_ micros: Int64) { switchAcks.append(micros) }

    /// Merges everything buffered into `shared` and starts empty.
    mutating func flush(into shared: Locked<BenchTally>) {
        guard counts != DeliveryCounts() || !latencies.isEmpty || !switchAcks.isEmpty else { return }
        let (counts, latencies, switchAcks, second) = (self.counts, self.latencies, self.switchAcks, self.second)
        shared.withLock { tally in
            tally.counts.add(counts)
            for latency in latencies { tally.latency.record(latency) }
            for ack in switchAcks { tally.switchAck.record(ack) }
            _ = tally.withSecond(second) { entry in
                entry.frames += latencies.count
                for latency in latencies { entry.latency.record(latency) }
            }
        }
        self.counts = DeliveryCounts()
        self.latencies.removeAll(keepingCapacity: true)
        self.switchAcks.removeAll()
    }
}
