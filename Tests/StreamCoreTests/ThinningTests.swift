import LocstreamProtocol
import Observability
import Testing

@testable import StreamCore

/// `min_interval_ms` and `min_distance_m`: per device, seq order kept, skips show as gaps.
@Suite("thinning")
struct ThinningTests {
    private let start = ContinuousClock.now
    private var seq: UInt64 = 0

    private mutating func publication(_ device: String = "a", lat: Double, kind: Publication.Kind = .location)
        -> Publication
    {
        seq += 1
        return Publication(EncodedLocation(Location(device: device, lat: lat, lon: 0, ts: 0, seq: seq)), kind: kind)
    }

    private func gate(interval: Int? = nil, distance: Double? = nil) -> FrameGate {
        let request = SubscribeRequest(
            sub: "s", target: .devices(["a"]), minIntervalMs: interval, minDistanceMeters: distance)
        return FrameGate(request, opening: Opening(), now: start)
    }

    private func sent(_ frame: FrameGate.Frame?) -> UInt64? {
        if case .location(let publication) = frame { publication.update.location.seq } else { nil }
    }

    @Test("min_distance_m skips updates closer than the distance to the last one sent")
    mutating func distance() {
        var gate = gate(distance: 100)
        #expect(sent(gate.admit(publication(lat: 0), now: start)) == 1)
        #expect(gate.admit(publication(lat: 0.0005), now: start) == nil, "about 56 m")
        #expect(sent(gate.admit(publication(lat: 0.001), now: start)) == 3, "about 111 m from the last sent")
    }

    @Test("min_interval_ms holds updates within the interval; the newest goes out when it ends")
    mutating func interval() {
        var gate = gate(interval: 1000)
        #expect(sent(gate.admit(publication(lat: 0), now: start)) == 1)
        #expect(gate.admit(publication(lat: 1), now: start + .milliseconds(100)) == nil)
        #expect(gate.admit(publication(lat: 2), now: start + .milliseconds(200)) == nil)
        #expect(gate.due(now: start + .milliseconds(900)).isEmpty)
        #expect(gate.due(now: start + .milliseconds(1000)).map(sent) == [3], "the newest wins; seq 2 is a gap")
        #expect(gate.due(now: start + .milliseconds(5000)).isEmpty, "sent once")
        #expect(sent(gate.admit(publication(lat: 3), now: start + .milliseconds(2000))) == 4)
        #expect(gate.tick == .milliseconds(250))
    }

    @Test("a leave drops the held update, and a device coming back is sent at once")
    mutating func leaveResets() {
        var gate = gate(interval: 1000, distance: 1000)
        #expect(sent(gate.admit(publication(lat: 0), now: start)) == 1)
        #expect(gate.admit(publication(lat: 1), now: start + .milliseconds(10)) == nil)
        guard case .leave("a") = gate.admit(publication(lat: 50, kind: .leave), now: start + .milliseconds(20))
        else {
            Issue.record("expected a leave")
            return
        }
        #expect(gate.due(now: start + .seconds(5)).isEmpty, "the held update is older than the leave")
        #expect(sent(gate.admit(publication(lat: 0), now: start + .milliseconds(30))) == 4)
    }

    @Test("a leave for a device the client was never shown is not sent")
    mutating func leaveOnlyWhenShown() {
        var gate = gate()
        #expect(gate.admit(publication(lat: 0, kind: .leave), now: start) == nil)
    }

    @Test("through a scope, a held update is flushed by the timer with no newer publication")
    func timerFlushes() async throws {
        let broker = LocalBroker(historySize: 4)
        let node = Node.testing(broker: broker, metrics: StreamMetrics(registry: MetricsRegistry()))
        let hub = node.hub
        let sink = RecordingSink()
        let scope = SubscriptionScope(sink: sink, node: node)
        try await scope.subscribeAndWait(
            SubscribeRequest(
                sub: "t", target: .area(.bbox(minLon: -1, minLat: -1, maxLon: 1, maxLat: 1)), minIntervalMs: 1500))
        let published = ContinuousClock.now
        for lat in [0.1, 0.2, 0.3] { _ = try await broker.publish([Location(device: "a", lat: lat, lon: 0, ts: 0)]) }
        let seqs = { sink.messages.compactMap { if case .loc(_, let location) = $0 { location.seq } else { nil } } }
        // Three in-process publications take far less than the interval, even under
        // ThreadSanitizer on a loaded machine; if not, the expectation below is moot.
        try #require(ContinuousClock.now - published < .milliseconds(1500))
        // The flush is due 1.5 s after the first frame; the wait allows for a machine
        // stalled by ThreadSanitizer.
        #expect(await sink.wait(within: .seconds(30)) { _ in seqs().last == 3 })
        #expect(seqs() == [1, 3], "the first frame, then the held one flushed by the timer")
        scope.end()
        #expect(hub.entryCount == 0)
    }
}
