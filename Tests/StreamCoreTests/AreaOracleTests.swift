import LocstreamProtocol
import Observability
import Testing

@testable import StreamCore

/// Area subscriptions against a brute-force oracle: random devices moving, random
/// viewports (city, antimeridian, poles), random pans. Every snapshot, `loc` and
/// `leave` must be exactly what testing every device against the area says, in order,
/// with no miss, no duplicate and no frame of an older viewport.
@Suite("area subscriptions against a brute-force oracle")
struct AreaOracleTests {
    @Test("random devices, viewports and pans", arguments: [0.1, 1.0])
    func matchesOracle(cellDegrees: Double) async throws {
        var world = AreaWorld(random: SeededRandom(seed: UInt64(cellDegrees * 1000)))
        let broker = LocalBroker(historySize: 4, grid: GeoGrid(cellDegrees: cellDegrees))
        let node = Node.testing(broker: broker, metrics: StreamMetrics(registry: MetricsRegistry()))
        let hub = node.hub
        let sink = RecordingSink()
        let scope = SubscriptionScope(sink: sink, node: node)
        let devices = (0..<150).map { "d\($0)" }
        var positions: [String: Location] = [:]
        for stored in try await broker.publish(devices.map { device(world.position(), $0) }) {
            positions[stored.location.device] = stored.location
        }
        var events = 0
        for pan in 0..<60 {
            let sub = "pan-\(pan)"
            let area = world.area()
            let geo = try GeoArea(area)
            try await scope.subscribeAndWait(SubscribeRequest(sub: sub, target: .area(area)))
            let snapshot = Set(positions.values.filter { geo.contains($0) }.map { "L:\($0.device):\($0.seq)" })
            var expected: [String] = []
            for _ in 0..<5 {
                let movers = devices.shuffled(using: &world.random).prefix(40).map { id in
                    device(world.move(from: positions[id].map { ($0.lat, $0.lon) } ?? world.position()), id)
                }
                for stored in try await broker.publish(movers) {
                    let new = stored.location
                    if geo.contains(new) {
                        expected.append("L:\(new.device):\(new.seq)")
                    } else if let old = positions[new.device], geo.contains(old) {
                        expected.append("X:\(new.device)")
                    }
                    positions[new.device] = new
                }
            }
            let seen = try await frames(of: sub, in: sink, count: snapshot.count + expected.count)
            #expect(seen.ackSnapshot == snapshot.count, "pan \(pan)")
            #expect(Set(seen.frames.prefix(snapshot.count)) == snapshot, "pan \(pan): snapshot")
            #expect(Array(seen.frames.dropFirst(snapshot.count)) == expected, "pan \(pan): live frames")
            #expect(seen.foreign == 0, "pan \(pan): frames of another sub after the ack")
            events += expected.count
        }
        #expect(events > 500, "the random walk should produce plenty of enters, stays and leaves")
        scope.end()
        #expect(hub.entryCount == 0)
    }

    private func device(_ position: (lat: Double, lon: Double), _ id: String) -> Location {
        Location(device: id, lat: position.lat, lon: position.lon, ts: 0)
    }

    /// The frames after `subscribed{sub}`, once `count` of them arrived (and a moment
    /// more, to catch duplicates), as `L:device:seq` and `X:device` strings.
    private func frames(of sub: String, in sink: RecordingSink, count: Int) async throws
        -> (ackSnapshot: Int?, frames: [String], foreign: Int)
    {
        func afterAck(_ messages: [ServerMessage]) -> ArraySlice<ServerMessage> {
            let ack = messages.lastIndex { if case .subscribed(sub, _, _) = $0 { true } else { false } }
            return ack.map { messages[($0 + 1)...] } ?? []
        }
        _ = await sink.wait { afterAck($0).count >= count }
        try await Task.sleep(for: .milliseconds(5))
        let messages = sink.messages
        let ack = messages.last { if case .subscribed(sub, _, _) = $0 { true } else { false } }
        var ackSnapshot: Int?
        if case .subscribed(_, _, let snapshot) = ack { ackSnapshot = snapshot }
        var frames: [String] = []
        var foreign = 0
        for message in afterAck(messages) {
            let frame: (sub: String, text: String)
            switch message {
            case .loc(let frameSub, let location): frame = (frameSub, "L:\(location.device):\(location.seq)")
            case .leave(let frameSub, let device): frame = (frameSub, "X:\(device)")
            default: continue
            }
            if frame.sub == sub { frames.append(frame.text) } else { foreign += 1 }
        }
        return (ackSnapshot, frames, foreign)
    }
}
