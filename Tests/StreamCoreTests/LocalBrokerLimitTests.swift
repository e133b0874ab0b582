import LocstreamProtocol
import Observability
import Testing

@testable import StreamCore

/// The embedded broker's device bound: `--max-devices` refuses new ids, `--retention`
/// forgets silent ones, and a forgotten device's seq never comes back.
@Suite("local broker limits")
struct LocalBrokerLimitTests {
    private let start = ContinuousClock.now
    private let registry = MetricsRegistry()

    private func broker(maxDevices: Int = 100_000, retention: Duration? = .seconds(60), history: Int = 10)
        -> LocalBroker
    {
        LocalBroker(
            historySize: history, limits: DeviceLimits(maxDevices: maxDevices, retention: retention),
            evicted: registry.counter("devices_evicted_total", help: "Forgotten devices."), now: start)
    }

    private func location(_ device: String, lat: Double = 1) -> Location {
        Location(device: device, lat: lat, lon: 2, ts: 3)
    }

    @Test("past --max-devices a publish naming a new device is refused whole; known devices keep updating")
    func maxDevices() throws {
        let broker = broker(maxDevices: 3)
        _ = try broker.publish(["a", "b", "c"].map { location($0) }, now: start)
        #expect(throws: BrokerError.deviceLimit(3)) {
            try broker.publish([location("a"), location("d")], now: start)
        }
        #expect(broker.deviceCount == 3)
        let stored = try broker.publish([location("a"), location("b"), location("a")], now: start)
        #expect(stored.map(\.location.seq) == [2, 2, 3], "nothing of the refused batch was stored")
        #expect(BrokerError.deviceLimit(3).deviceLimit && BrokerError.deviceLimit(3).description.contains("3"))
    }

    @Test("a batch of new devices is counted once per id")
    func distinctIDs() throws {
        let broker = broker(maxDevices: 2)
        _ = try broker.publish([location("a"), location("b"), location("a"), location("b")], now: start)
        #expect(broker.deviceCount == 2)
    }

    @Test("a device silent longer than the retention is forgotten; one heard since is kept")
    func retention() async throws {
        let broker = broker(retention: .seconds(60))
        _ = try broker.publish([location("quiet"), location("busy")], now: start)
        _ = try broker.publish([location("busy")], now: start + .seconds(50))
        #expect(try await broker.sweep(now: start + .seconds(60)) == 0, "not silent longer than 60 s yet")
        #expect(try await broker.sweep(now: start + .seconds(62)) == 1)
        #expect(broker.deviceCount == 1)
        #expect(try await broker.lastKnown(["quiet", "busy"]).map(\.location.device) == ["busy"])
        #expect(
            try await broker.lastKnown(in: try GeoArea(.bbox(minLon: 0, minLat: 0, maxLon: 3, maxLat: 3))).count == 1)
        #expect(try await broker.replay("quiet", after: 0).latestSeq == 0)
        #expect(registry.render().contains("devices_evicted_total 1"))
        #expect(try await broker.sweep(now: start + .seconds(200)) == 1, "then busy, silent too")
    }

    @Test("a forgotten device that comes back, and any new one, get seqs above every seq handed out")
    func seqFloor() async throws {
        let broker = broker(retention: .seconds(10))
        for _ in 0..<5 { _ = try broker.publish([location("veh")], now: start) }
        try await broker.sweep(now: start + .seconds(20))
        #expect(broker.deviceCount == 0)
        #expect(try broker.publish([location("veh")], now: start + .seconds(21)).first?.location.seq == 6)
        #expect(try broker.publish([location("new")], now: start + .seconds(21)).first?.location.seq == 6)
    }

    @Test("the entry is the history ring: the newest is the last known position, history keeps its capacity")
    func history() async throws {
        let broker = broker(history: 3)
        for lat in 1...5 { _ = try broker.publish([location("veh", lat: Double(lat))], now: start) }
        #expect(try await broker.lastKnown(["veh"]).first?.location.lat == 5)
        let replay = try await broker.replay("veh", after: 0)
        #expect(replay.updates.map(\.location.seq) == [3, 4, 5] && replay.latestSeq == 5)
        let none = self.broker(history: 0)
        _ = try none.publish([location("veh"), location("veh")], now: start)
        #expect(try await none.replay("veh", after: 0).updates.isEmpty)
        #expect(try await none.lastKnown(["veh"]).first?.location.seq == 2)
    }

    @Test("a forgotten device leaves no trace in the area index")
    func areaIndex() async throws {
        let broker = broker(retention: .seconds(10))
        _ = try broker.publish([location("veh", lat: 1)], now: start)
        try await broker.sweep(now: start + .seconds(20))
        _ = try broker.publish([location("other", lat: 1)], now: start + .seconds(20))
        let area = try GeoArea(.bbox(minLon: 0, minLat: 0, maxLon: 3, maxLat: 3))
        #expect(try await broker.lastKnown(in: area).map(\.location.device) == ["other"])
    }
}
