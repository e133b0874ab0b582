import Locking
import LocstreamProtocol
import Observability
import Testing

@testable import StreamCore

/// The embedded broker over a `DeviceStore`: fan-out runs ahead of the disk, the
/// publisher's answer waits for the commit, and a restart continues from the store.
@Suite("local broker with a store")
struct LocalBrokerStoreTests {
    /// Records what a broker reports, in order.
    final class RecordingEvents: BrokerEventHandler {
        private let heard = Locked<[EncodedLocation]>([])

        func handlePublication(_ update: EncodedLocation, previous: Location?, to audience: Audience) {
            heard.withLock { $0.append(update) }
        }

        func isWatched(_ subject: Subject) -> Bool { true }

        var watchedSubjects: [Subject] { [] }

        /// The seqs reported so far.
        var seqs: [UInt64] { heard.withLock { $0.map(\.location.seq) } }
    }

    private let events = RecordingEvents()

    private func broker(over store: FakeDeviceStore, history: Int = 10) throws -> LocalBroker {
        let broker = try LocalBroker(restoringFrom: store, historySize: history)
        broker.run(reporting: events)
        return broker
    }

    private func location(_ device: String, lat: Double = 1) -> Location {
        Location(device: device, lat: lat, lon: 2, ts: 3)
    }

    /// Publishes and commits `count` updates of `device`, one at a time.
    private func publishCommitted(_ count: Int, of device: String, to broker: LocalBroker, store: FakeDeviceStore)
        async throws
    {
        for _ in 0..<count {
            let publish = Task { try await broker.publish([location(device)]) }
            #expect(await waitForPending(store))
            store.commitAll()
            _ = try await publish.value
        }
    }

    /// Waits (yielding, up to a generous bound) until a write waits for its commit.
    private func waitForPending(_ store: FakeDeviceStore) async -> Bool {
        for _ in 0..<100_000 {
            if store.pendingCount > 0 { return true }
            await Task.yield()
        }
        return false
    }

    @Test("a publication is delivered at once; the publisher is answered only after the commit")
    func ackAfterCommit() async throws {
        let store = FakeDeviceStore()
        let broker = try broker(over: store)
        let answered = Locked(false)
        let publish = Task {
            let stored = try await broker.publish([location("veh")])
            answered.withLock { $0 = true }
            return stored
        }
        #expect(await waitForPending(store))
        #expect(events.seqs == [1], "fan-out does not wait for the disk")
        for _ in 0..<1000 { await Task.yield() }
        #expect(answered.withLock { $0 } == false, "no answer before the commit")
        store.commitAll()
        #expect(try await publish.value.map(\.location.seq) == [1])
    }

    @Test("a publish nobody is told about (no ack) does not wait for the disk; it is committed all the same")
    func unconfirmedDoesNotWait() async throws {
        let store = FakeDeviceStore()
        let broker = try broker(over: store)
        let stored = try await broker.publish([location("veh")], confirmed: false)
        #expect(stored.map(\.location.seq) == [1] && events.seqs == [1])
        #expect(store.pendingCount == 1, "queued for the writer")
        store.commitAll()
        #expect(store.pendingCount == 0)
    }

    @Test("a store that cannot take a write refuses the publication whole: no seq handed out, nothing delivered")
    func refusedWrite() async throws {
        let store = FakeDeviceStore()
        let broker = try broker(over: store)
        store.refuse(true)
        await #expect(throws: BrokerError("store: the write queue is full")) {
            try await broker.publish([location("veh"), location("new")])
        }
        #expect(events.seqs.isEmpty && broker.deviceCount == 0)
        store.refuse(false)
        try await publishCommitted(1, of: "veh", to: broker, store: store)
        #expect(events.seqs == [1])
    }

    @Test("a failed commit fails the publish with the store's reason; /readyz follows the store's health")
    func failedCommit() async throws {
        let store = FakeDeviceStore()
        let broker = try broker(over: store)
        let publish = Task { try await broker.publish([location("veh")]) }
        #expect(await waitForPending(store))
        store.failAll("store: disk full")
        await #expect(throws: BrokerError("store: disk full")) { try await publish.value }
        #expect(!broker.isReachable)
        try await publishCommitted(1, of: "veh", to: broker, store: store)
        #expect(broker.isReachable)
    }

    @Test("a restart continues seqs, last positions and the area index from the store")
    func restart() async throws {
        let first = FakeDeviceStore()
        try await publishCommitted(5, of: "veh", to: try broker(over: first), store: first)
        let store = FakeDeviceStore(restartOf: first)
        let broker = try broker(over: store)
        #expect(try await broker.lastKnown(["veh"]).map(\.location.seq) == [5])
        let area = try GeoArea(.bbox(minLon: 0, minLat: 0, maxLon: 3, maxLat: 3))
        #expect(try await broker.lastKnown(in: area).map(\.location.device) == ["veh"])
        try await publishCommitted(1, of: "veh", to: broker, store: store)
        #expect(try await broker.lastKnown(["veh"]).map(\.location.seq) == [6])
    }

    @Test("after a crash every device continues above the store's floor, and a new one above its seq floor")
    func floorsAfterCrash() async throws {
        let first = FakeDeviceStore()
        try await publishCommitted(3, of: "veh", to: try broker(over: first), store: first)
        let store = FakeDeviceStore(restartOf: first, seqFloor: 2000, resumeAbove: 1000)
        let broker = try broker(over: store)
        try await publishCommitted(1, of: "veh", to: broker, store: store)
        try await publishCommitted(1, of: "new", to: broker, store: store)
        #expect(try await broker.lastKnown(["veh", "new"]).map(\.location.seq) == [1001, 2001])
    }

    /// A broker keeping 4 updates in memory, restarted over a store that holds 5 of "veh".
    private func restartedOverFiveUpdates() async throws -> (LocalBroker, FakeDeviceStore) {
        let first = FakeDeviceStore()
        try await publishCommitted(5, of: "veh", to: try broker(over: first), store: first)
        let store = FakeDeviceStore(restartOf: first)
        return (try broker(over: store, history: 4), store)
    }

    @Test("a since older than memory holds is replayed from the store, then from memory")
    func replayFromStore() async throws {
        let (broker, store) = try await restartedOverFiveUpdates()
        let afterRestart = try await broker.replay("veh", after: 2)
        #expect(afterRestart.updates.map(\.location.seq) == [3, 4, 5] && afterRestart.latestSeq == 5)
        try await publishCommitted(1, of: "veh", to: broker, store: store)
        #expect(try await broker.replay("veh", after: 0).updates.map(\.location.seq) == [3, 4, 5, 6])
        broker.close()
        #expect(store.isClosed)
    }

    @Test("a replay reads the store (a blocking read) in a task of its own, not on the caller's")
    func replayReadsStoreApart() async throws {
        let (broker, store) = try await restartedOverFiveUpdates()
        let caller = withUnsafeCurrentTask { $0?.hashValue }
        #expect(try await broker.replay("veh", after: 2).updates.map(\.location.seq) == [3, 4, 5])
        let readers = store.historyReaders
        #expect(readers.count == 1 && readers[0] != nil && readers[0] != caller)
        broker.close()
    }
}
