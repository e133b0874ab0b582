import Locking
import LocstreamProtocol
import Testing

@testable import StreamCore

/// The node-wide pacing of aggregated-area reads: one at a time, and after a read of `d`
/// the next waits `spacing × d`; a waiting read ends when its task is cancelled.
@Suite("area read pacer")
struct AreaReadPacerTests {
    /// A broker whose area reads take `readTime` and are logged; nothing else is used.
    final class SlowAreaBroker: Broker {
        let readTime: Duration
        let reads = Locked<[(start: ContinuousClock.Instant, end: ContinuousClock.Instant)]>([])

        init(readTime: Duration) { self.readTime = readTime }

        let grid = GeoGrid()
        let followsInterest = false
        let isReachable = true
        func run(reporting events: any BrokerEventHandler) {}
        func interestChanged(_ subject: Subject) {}
        func confirmInterest() async throws(BrokerError) {}
        func close() {}
        func publish(_ locations: [Location], confirmed: Bool) async throws(BrokerError) -> [EncodedLocation] { [] }
        func lastKnown(_ devices: [String]) async throws(BrokerError) -> [EncodedLocation] { [] }
        func replay(_ device: String, after seq: UInt64) async throws(BrokerError) -> Replay {
            Replay(updates: [], latestSeq: 0)
        }
        func positions(matching query: PositionQuery) async throws(BrokerError) -> PositionQueryResult {
            throw BrokerError("not used")
        }

        func lastKnown(in area: GeoArea) async throws(BrokerError) -> [EncodedLocation] {
            let start = ContinuousClock.now
            while ContinuousClock.now - start < readTime {}  // busy, as a Lua script keeps Redis
            reads.withLock { $0.append((start, ContinuousClock.now)) }
            return []
        }
    }

    @Test("three concurrent reads run one at a time, each after 4 × the previous read's duration")
    func spacing() async throws {
        let broker = SlowAreaBroker(readTime: .milliseconds(20))
        let pacer = AreaReadPacer(spacing: 4)
        let area = try GeoArea(.bbox(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 { group.addTask { _ = try await pacer.read(area, from: broker) } }
            try await group.waitForAll()
        }
        let reads = broker.reads.withLock { $0 }.sorted { $0.start < $1.start }
        #expect(reads.count == 3)
        for (earlier, later) in zip(reads, reads.dropFirst()) {
            #expect(later.start - earlier.end >= (earlier.end - earlier.start) * 4, "\(reads)")
        }
    }

    @Test("a read waiting its turn ends with CancellationError when its task is cancelled, and reads nothing")
    func cancelledWhileWaiting() async throws {
        let broker = SlowAreaBroker(readTime: .milliseconds(200))
        let pacer = AreaReadPacer(spacing: 1000)
        let area = try GeoArea(.bbox(minLon: 0, minLat: 0, maxLon: 1, maxLat: 1))
        _ = try await pacer.read(area, from: broker)
        let waiting = Task { try await pacer.read(area, from: broker) }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        let started = ContinuousClock.now
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        // Far below the 200 s spacing, and far above what a loaded ThreadSanitizer run takes
        // to schedule the cancelled task (10.4 s seen once against a bound of 10 s).
        #expect(ContinuousClock.now - started < .seconds(100), "it did not wait out the 200 s spacing")
        #expect(broker.reads.withLock { $0.count } == 1)
    }
}
