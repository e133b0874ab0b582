import LocstreamProtocol
import Observability
import StreamCore
import Testing

/// The `.task(id:)` rules of `SubscriptionScope`, without a socket.
@Suite("subscription scope")
struct SubscriptionScopeTests {
    let broker = LocalBroker(historySize: 10)
    let hub: Hub
    let sink = RecordingSink()
    let metrics = StreamMetrics(registry: MetricsRegistry())
    let scope: SubscriptionScope

    init() {
        let node = Node.testing(broker: broker, metrics: metrics)
        hub = node.hub
        scope = SubscriptionScope(sink: sink, node: node)
    }

    private func publish(_ device: String, _ lat: Double = 1) async throws {
        _ = try await broker.publish([Location(device: device, lat: lat, lon: 2, ts: 3)])
    }

    private func request(_ sub: String, _ devices: [String], snapshot: Bool = true, since: [String: UInt64] = [:])
        -> SubscribeRequest
    {
        SubscribeRequest(sub: sub, target: .devices(devices), snapshot: snapshot, since: since)
    }

    private func locs(_ messages: [ServerMessage]) -> [(sub: String, device: String, seq: UInt64)] {
        messages.compactMap {
            if case .loc(let sub, let location) = $0 { (sub, location.device, location.seq) } else { nil }
        }
    }

    @Test("a first subscribe sends the ack, then the snapshot, then live updates")
    func firstSubscribe() async throws {
        try await publish("a")
        try await scope.subscribeAndWait(request("A", ["a", "b"]))
        #expect(sink.messages.first == .subscribed(sub: "A", restarted: false, snapshot: 1))
        try await publish("b")
        try await publish("a")
        #expect(await sink.wait { locs($0).count == 3 })
        #expect(locs(sink.messages).map { "\($0.device)\($0.seq)" } == ["a1", "b1", "a2"])
        #expect(hub.entryCount == 2 && metrics.subscriptions.current == 1)
        #expect(metrics.subscribeToAck.observationCount == 1)
    }

    @Test("a switch cancels the old subscription first; after the new ack no old frame appears")
    func switchIsClean() async throws {
        try await scope.subscribeAndWait(request("A", ["a"]))
        try await publish("a")
        #expect(await sink.wait { locs($0).count == 1 })
        try await scope.subscribeAndWait(request("B", ["b"]))
        #expect(hub.entryCount == 1, "the old registration is gone")
        try await publish("a")
        try await publish("b")
        #expect(await sink.wait { locs($0).contains { $0.sub == "B" } })
        let messages = sink.messages
        let ack = try #require(messages.firstIndex(of: .subscribed(sub: "B", restarted: true, snapshot: 0)))
        #expect(locs(Array(messages[ack...])).allSatisfy { $0.sub == "B" })
        #expect(metrics.switches.count == 1 && metrics.subscriptions.current == 1)
    }

    @Test("the same sub and target is a no-op; another target is sub_id_reused and keeps the running one")
    func sameSubRules() async throws {
        try await scope.subscribeAndWait(request("A", ["a"]))
        try await scope.subscribeAndWait(request("A", ["a"]))
        #expect(sink.messages.last == .subscribed(sub: "A", restarted: false, snapshot: 0))
        await #expect(throws: ProtocolError.self) { try await scope.subscribeAndWait(request("A", ["z"])) }
        #expect(scope.currentSub == "A" && hub.entryCount == 1)
        try await publish("a")
        #expect(await sink.wait { locs($0).count == 1 })
    }

    @Test("a device target is a set: the same devices in another order, or repeated, are the same target")
    func deviceTargetIsASet() async throws {
        try await scope.subscribeAndWait(request("A", ["m-1", "m-2"]))
        for devices in [["m-2", "m-1"], ["m-1", "m-2", "m-1"], ["m-2", "m-2", "m-1"]] {
            try await scope.subscribeAndWait(request("A", devices))
            #expect(sink.messages.last == .subscribed(sub: "A", restarted: false, snapshot: 0), "\(devices)")
        }
        for devices in [["m-1"], ["m-1", "m-2", "m-3"]] {
            await expectReused(request("A", devices))
        }
        #expect(metrics.switches.count == 0 && scope.currentTarget == .devices(["m-1", "m-2"]))
    }

    /// Subscribing with `request` must fail with `sub_id_reused`.
    private func expectReused(_ request: SubscribeRequest, sourceLocation: SourceLocation = #_sourceLocation) async {
        let error = await #expect(throws: ProtocolError.self, sourceLocation: sourceLocation) {
            try await scope.subscribeAndWait(request)
        }
        #expect(error?.code == .subIdReused, "\(request)", sourceLocation: sourceLocation)
    }

    @Test("other thinning under the same sub is sub_id_reused; other snapshot or since is a no-op")
    func thinningIsPartOfTheSubscription() async throws {
        let running = SubscribeRequest(sub: "A", target: .devices(["a"]), minIntervalMs: 1000)
        try await scope.subscribeAndWait(running)
        var others = [running, running, running, running]
        others[0].minIntervalMs = 2000
        others[1].minIntervalMs = nil
        others[2].minDistanceMeters = 5
        others[3].minIntervalMs = 0
        for other in others {
            await expectReused(other)
        }
        var opening = running
        opening.snapshot = false
        opening.since = ["a": 7]
        try await scope.subscribeAndWait(opening)
        #expect(sink.messages.last == .subscribed(sub: "A", restarted: false, snapshot: 0))
        try await scope.subscribeAndWait(SubscribeRequest(sub: "B", target: .devices(["a"])))
        var unthinned = SubscribeRequest(sub: "B", target: .devices(["a"]), minIntervalMs: 0, minDistanceMeters: 0)
        unthinned.snapshot = false
        try await scope.subscribeAndWait(unthinned)
        #expect(sink.messages.last == .subscribed(sub: "B", restarted: false, snapshot: 0))
    }

    @Test("a degenerate or too large area is bad_request, and the running subscription stays")
    func badAreaRefused() async throws {
        try await scope.subscribeAndWait(request("A", ["a"]))
        let areas: [Area] = [
            .bbox(minLon: 1, minLat: 1, maxLon: 1, maxLat: 2), .bbox(minLon: 1, minLat: 2, maxLon: 2, maxLat: 2),
            .circle(lon: 0, lat: 0, radiusMeters: 0), .circle(lon: 0, lat: 91, radiusMeters: 10),
            .bbox(minLon: -10, minLat: -10, maxLon: 10, maxLat: 10),
        ]
        for area in areas {
            let refused = await #expect(throws: ProtocolError.self) {
                try await scope.subscribeAndWait(SubscribeRequest(sub: "B", target: .area(area)))
            }
            #expect(refused?.code == .badRequest)
        }
        #expect(scope.currentSub == "A" && hub.entryCount == 1)
    }

    @Test("since replays history after the given seq; at or past the current seq nothing is replayed")
    func sinceReplays() async throws {
        for lat in 1...5 { try await publish("a", Double(lat)) }
        try await scope.subscribeAndWait(request("A", ["a"], since: ["a": 3]))
        #expect(locs(sink.messages).map(\.seq) == [4, 5])
        #expect(sink.messages.first == .subscribed(sub: "A", restarted: false, snapshot: 2))
        try await scope.subscribeAndWait(request("B", ["a"], since: ["a": 5]))
        try await publish("a")
        #expect(await sink.wait { locs($0).contains { $0.sub == "B" } })
        #expect(locs(sink.messages).filter { $0.sub == "B" }.map(\.seq) == [6])
    }

    @Test("unsubscribe acknowledges and stops; a second one is not_subscribed")
    func unsubscribe() async throws {
        try await scope.subscribeAndWait(request("A", ["a"]))
        try scope.unsubscribe()
        #expect(sink.messages.last == .unsubscribed(sub: "A"))
        #expect(hub.entryCount == 0 && metrics.subscriptions.current == 0)
        #expect(throws: ProtocolError.self) { try scope.unsubscribe() }
        try await publish("a")
        try await Task.sleep(for: .milliseconds(50))
        #expect(locs(sink.messages).isEmpty)
    }

    @Test("ending the scope releases hub entries and the task")
    func endReleases() async throws {
        try await scope.subscribeAndWait(request("A", ["a", "b", "c"]))
        #expect(hub.entryCount == 3)
        scope.end()
        #expect(hub.entryCount == 0 && metrics.subscriptions.current == 0)
    }
}
