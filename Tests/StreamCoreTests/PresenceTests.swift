import Foundation
import LocstreamProtocol
import Observability
import Testing

@testable import StreamCore

/// Presence with an injected clock: a device silent past `--offline-after` is reported
/// `online:false` once to the subscribers that were shown it, and `online:true` before its
/// next location; snapshots say `online`; a device silent since before the node started is
/// offline without a transition.
@Suite("presence")
struct PresenceTests {
    private let clock = ManualClock()
    private let broker = LocalBroker(historySize: 4)
    private let registry = MetricsRegistry()

    private func node() -> Node {
        var limits = SessionLimits()
        limits.offlineAfter = .seconds(10)
        return Node(
            name: "t", broker: broker, metrics: StreamMetrics(registry: registry), logger: Logger(component: "t"),
            limits: limits, clock: clock)
    }

    private func location(_ device: String, ageSeconds: Double = 0) -> Location {
        Location(
            device: device, lat: 52.5, lon: 13.4,
            ts: Int64((clock.now.timeIntervalSince1970 - ageSeconds) * 1000))
    }

    @Test("offline once after the silence, online before the next location")
    func transitions() async throws {
        let node = node()
        let sink = RecordingSink()
        let scope = SubscriptionScope(sink: sink, node: node)
        _ = try await broker.publish([location("a"), location("b")])
        try await scope.subscribeAndWait(SubscribeRequest(sub: "s", target: .devices(["a", "b"])))
        #expect(
            sink.texts.filter { $0.hasPrefix(#"{"op":"loc","sub":"s","#) && $0.hasSuffix(#","online":true}"#) }.count
                == 2)
        #expect(online() == 2)
        clock.advance(by: .seconds(6))
        _ = try await broker.publish([location("b")])
        clock.advance(by: .seconds(5))
        node.expirePresence()
        let offlineA = #"{"op":"presence","sub":"s","device":"a","online":false,"last_seen":"#
        #expect(await sink.waitTexts { $0.contains { $0.hasPrefix(offlineA) } })
        #expect(!sink.texts.contains { $0.contains(#""device":"b","online":false"#) }, "b spoke 5 s ago")
        #expect(online() == 1)
        clock.advance(by: .seconds(6))
        node.expirePresence()
        node.expirePresence()
        #expect(await sink.waitTexts { $0.contains { $0.contains(#""device":"b","online":false"#) } })
        #expect(online() == 0)
        _ = try await broker.publish([location("a")])
        #expect(await sink.waitTexts { $0.last?.contains(#""op":"loc","sub":"s","device":"a""#) == true })
        let texts = sink.texts
        #expect(texts.filter { $0.contains(#""online":false"#) && $0.contains("presence") }.count == 2, "once each")
        #expect(texts[texts.count - 2] == #"{"op":"presence","sub":"s","device":"a","online":true}"#)
        #expect(online() == 1)
        scope.end()
    }

    @Test("a snapshot says offline, and the device's next update says online first")
    func snapshotOffline() async throws {
        let node = node()
        _ = try await broker.publish([location("a")])
        clock.advance(by: .seconds(11))
        node.expirePresence()
        let sink = RecordingSink()
        let scope = SubscriptionScope(sink: sink, node: node)
        try await scope.subscribeAndWait(
            SubscribeRequest(sub: "late", target: .area(.bbox(minLon: 13, minLat: 52, maxLon: 14, maxLat: 53))))
        #expect(
            sink.texts.contains {
                $0.hasPrefix(#"{"op":"loc","sub":"late","device":"a""#) && $0.hasSuffix(#","online":false}"#)
            })
        _ = try await broker.publish([location("a")])
        #expect(await sink.waitTexts { $0.count == 4 })
        #expect(sink.texts[2] == #"{"op":"presence","sub":"late","device":"a","online":true}"#)
        #expect(sink.texts[3].hasPrefix(#"{"op":"loc","sub":"late","device":"a""#))
        scope.end()
    }

    @Test("devices heard before the node started are judged by ts, and no old transition is replayed")
    func restart() async throws {
        _ = try await broker.publish([location("old", ageSeconds: 3600), location("fresh", ageSeconds: 4)])
        let node = node()
        let sink = RecordingSink()
        let scope = SubscriptionScope(sink: sink, node: node)
        try await scope.subscribeAndWait(SubscribeRequest(sub: "s", target: .devices(["old", "fresh"])))
        #expect(
            sink.texts.contains {
                $0.hasPrefix(#"{"op":"loc","sub":"s","device":"old""#) && $0.hasSuffix(#","online":false}"#)
            })
        #expect(
            sink.texts.contains {
                $0.hasPrefix(#"{"op":"loc","sub":"s","device":"fresh""#) && $0.hasSuffix(#","online":true}"#)
            })
        clock.advance(by: .seconds(5))
        node.expirePresence()
        #expect(!sink.texts.contains { $0.contains("presence") }, "fresh has 1 s left; old was never online here")
        clock.advance(by: .seconds(2))
        node.expirePresence()
        #expect(await sink.waitTexts { $0.contains { $0.contains(#""device":"fresh","online":false"#) } })
        #expect(!sink.texts.contains { $0.contains(#""device":"old","online""#) })
        scope.end()
    }

    private func online() -> Int? {
        registry.render().split(separator: "\n").first { $0.hasPrefix("locstream_devices_online ") }.flatMap {
            Int($0.split(separator: " ")[1])
        }
    }
}
