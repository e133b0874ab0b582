import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// Area subscriptions on the real server: a viewport panned 50 times over a city
    /// while 1,000 devices move.
    @Suite("area subscriptions: panning a viewport")
    struct AreaPanTests {
        /// 1,000 devices over a 0.8° × 0.4° city, each circling its home. Every round
        /// is one `publish` of all of them (one broker critical section), stamped with
        /// `ts = base + round`, so a snapshot is all of one round and can be checked
        /// against that round exactly.
        struct City {
            static let base: Int64 = 1_764_421_200_000
            static let devices = (0..<1000).map { "veh-\($0)" }

            static func position(_ index: Int, round: Int) -> (lat: Double, lon: Double) {
                let home = (
                    lat: 52.3 + 0.4 * (Double(index) * 0.618_034).truncatingRemainder(dividingBy: 1),
                    lon: 13.0 + 0.8 * (Double(index) * 0.754_877_7).truncatingRemainder(dividingBy: 1)
                )
                let phase = Double(round) * 0.2 + Double(index)
                return (home.lat + 0.03 * sin(phase), home.lon + 0.03 * cos(phase))
            }

            static func round(_ round: Int) -> [Location] {
                devices.indices.map { index in
                    let position = position(index, round: round)
                    return Location(
                        device: devices[index], lat: position.lat, lon: position.lon, ts: base + Int64(round))
                }
            }

            /// The `pan`th viewport: 0.2° × 0.1°, somewhere over the city.
            static func viewport(_ pan: Int) -> (minLon: Double, minLat: Double, maxLon: Double, maxLat: Double) {
                let lon = 13.05 + 0.55 * (Double(pan) * 0.37).truncatingRemainder(dividingBy: 1)
                let lat = 52.32 + 0.26 * (Double(pan) * 0.59).truncatingRemainder(dividingBy: 1)
                return (lon, lat, lon + 0.2, lat + 0.1)
            }

            static func inside(
                _ lat: Double, _ lon: Double, _ box: (minLon: Double, minLat: Double, maxLon: Double, maxLat: Double)
            ) -> Bool {
                lat >= box.minLat && lat <= box.maxLat && lon >= box.minLon && lon <= box.maxLon
            }
        }

        /// What one pan saw.
        struct PanResult {
            var stale = 0
            var outside = 0
            var duplicates = 0
            var badLeaves = 0
            var live = 0
            var leaves = 0
            var snapshotChecked = false
            var snapshotErrors: [String] = []
        }

        /// What a node needs to take a whole city in one publish.
        static let cityLimits = ServerHarness.floodLimits + ["--max-message-bytes", "1048576"]

        @Test("pan 50 times while 1,000 devices move: no stale frame, every snapshot exact")
        func panWhileMoving() async throws {
            let server = try await ServerHarness(Self.cityLimits)
            try await Self.panWhileMoving(publishingTo: server, viewingOn: server)
        }

        /// Moves the city through `publishNode` while a viewer on `server` pans 50
        /// times, then checks every pan and that the hub is empty once the viewer leaves.
        static func panWhileMoving(publishingTo publishNode: ServerHarness, viewingOn server: ServerHarness)
            async throws
        {
            let client = try await WebSocketClient.start()
            let url = server.url("/v1/stream")
            let publisher = try await StreamTestClient(client, url: publishNode.url("/v1/stream"))
            publisher.send(.publish(City.round(0), ack: true))
            guard case .published(1000)? = await publisher.next() else {
                Issue.record("the first round was not published")
                return
            }
            let movement = Task {
                var round = 1
                while !Task.isCancelled {
                    publisher.send(.publish(City.round(round), ack: false))
                    round += 1
                    try? await Task.sleep(for: .milliseconds(40))
                }
            }
            let viewer = try await StreamTestClient(client, url: url)
            var results: [PanResult] = []
            for pan in 0..<50 {
                results.append(await Self.pan(pan, viewer: viewer))
            }
            movement.cancel()
            #expect(results.map(\.stale).reduce(0, +) == 0, "frames of an older viewport after the new ack")
            #expect(results.map(\.outside).reduce(0, +) == 0, "loc frames outside the viewport")
            #expect(results.map(\.duplicates).reduce(0, +) == 0, "duplicate or out-of-order seqs")
            #expect(results.map(\.badLeaves).reduce(0, +) == 0, "leave for a device not shown")
            #expect(results.flatMap(\.snapshotErrors) == [])
            #expect(results.filter(\.snapshotChecked).count >= 45, "nearly every viewport holds devices")
            #expect(
                results.map(\.live).reduce(0, +) > SanitizerScale.floor(1000), "live frames flow after each snapshot")
            #expect(results.map(\.leaves).reduce(0, +) > SanitizerScale.floor(50), "devices leave moving viewports")
            viewer.connection.close(code: 1000)
            var entries = ""
            for _ in 0..<100 where !entries.contains("locstream_hub_entries 0") {
                try await Task.sleep(for: .milliseconds(25))
                entries = try RawHTTPResponse.fetch(port: server.port, path: "/metrics").body
            }
            #expect(entries.contains("locstream_hub_entries 0"))
            await client.shutdown()
        }

        @Test("an area over --max-area-km2, or degenerate, is bad_request")
        func areaLimits() async throws {
            try await ServerHarness.withClient(["--max-area-km2", "100"]) { server, client in
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                for area in [
                    Area.bbox(minLon: 13, minLat: 52, maxLon: 13.2, maxLat: 52.1),
                    .circle(lon: 0, lat: 0, radiusMeters: 6000),
                ] {
                    viewer.send(.subscribe(SubscribeRequest(sub: "big", target: .area(area))))
                    let error = await viewer.nextError()
                    #expect(error?.code == .badRequest && error?.failedOp == "subscribe")
                }
                viewer.send(raw: #"{"op":"subscribe","sub":"flat","area":{"bbox":[13,52,13,52.1]}}"#)
                guard case .error(let error)? = await viewer.next(), error.code == .badRequest else {
                    Issue.record("a zero-width box must be bad_request")
                    return
                }
                viewer.send(
                    .subscribe(SubscribeRequest(sub: "ok", target: .area(.circle(lon: 0, lat: 0, radiusMeters: 5000)))))
                #expect(await viewer.next() == .subscribed(sub: "ok", restarted: false, snapshot: 0))
            }
        }

        /// Subscribes to the `pan`th viewport, checks the snapshot against its round,
        /// then reads live frames for a moment.
        private static func pan(_ pan: Int, viewer: StreamTestClient) async -> PanResult {
            let box = City.viewport(pan)
            let sub = "view-\(pan)"
            viewer.send(
                .subscribe(
                    SubscribeRequest(
                        sub: sub,
                        target: .area(
                            .bbox(minLon: box.minLon, minLat: box.minLat, maxLon: box.maxLon, maxLat: box.maxLat))
                    )))
            var result = PanResult()
            var snapshotLeft: Int?
            var snapshot: [Location] = []
            var lastSeq: [String: UInt64] = [:]
            let deadline = ContinuousClock.now + .milliseconds(300)
            while ContinuousClock.now < deadline || (snapshotLeft ?? 1) > 0,
                let frame = await viewer.next(within: .seconds(5))
            {
                switch frame {
                case .subscribed(let ackSub, _, let count) where ackSub == sub:
                    snapshotLeft = count
                case .loc(let frameSub, let location) where snapshotLeft != nil:
                    guard frameSub == sub else {
                        result.stale += 1
                        continue
                    }
                    if !City.inside(location.lat, location.lon, box) { result.outside += 1 }
                    if location.seq <= lastSeq[location.device, default: 0] { result.duplicates += 1 }
                    lastSeq[location.device] = location.seq
                    if let left = snapshotLeft, left > 0 {
                        snapshot.append(location)
                        snapshotLeft = left - 1
                    } else {
                        result.live += 1
                    }
                case .leave(let frameSub, let device) where snapshotLeft != nil:
                    if frameSub != sub { result.stale += 1 }
                    if lastSeq.removeValue(forKey: device) == nil { result.badLeaves += 1 }
                    result.leaves += 1
                default: break
                }
            }
            check(snapshot, of: box, into: &result)
            return result
        }

        /// A snapshot is exactly the devices inside `box` in its round, at their positions.
        private static func check(
            _ snapshot: [Location], of box: (minLon: Double, minLat: Double, maxLon: Double, maxLat: Double),
            into result: inout PanResult
        ) {
            let rounds = Set(snapshot.map { Int($0.ts - City.base) })
            guard let round = rounds.first else { return }
            guard rounds.count == 1 else {
                result.snapshotErrors.append("snapshot mixes rounds \(rounds.sorted())")
                return
            }
            result.snapshotChecked = true
            let expected = Set(
                City.devices.indices.filter {
                    let position = City.position($0, round: round)
                    return City.inside(position.lat, position.lon, box)
                }.map { City.devices[$0] })
            if Set(snapshot.map(\.device)) != expected || snapshot.count != expected.count {
                result.snapshotErrors.append("round \(round): \(snapshot.count) devices, expected \(expected.count)")
            }
        }
    }
}
