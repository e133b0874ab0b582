import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// Aggregated areas (`cells` frames) on a real server: the whole area first, then only
    /// changed cells, an emptied cell once with count 0; bad `aggregate` requests refused
    /// beside a bystander; switches between aggregated and plain areas during a flood with
    /// no stale frame; a token's `devices` claim applied to the counts; two Redis nodes
    /// giving the same counts.
    @Suite("aggregated areas")
    struct AggregatedAreaTests {
        static let world = #"{"bbox":[-180,-90,180,90]}"#

        @Test("the whole area first, then only changed cells; an emptied cell once with count 0; no frame when still")
        func cellsFrames() async throws {
            try await ServerHarness.withClient { server, client in
                try publish([("agg-1", 52.5, 13.4), ("agg-2", 52.7, 13.6), ("agg-3", -33.9, 151.2)], to: server)
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                viewer.send(
                    raw:
                        #"{"op":"subscribe","sub":"w","area":\#(Self.world),"aggregate":{"cell_deg":10},"min_interval_ms":100}"#
                )
                #expect(await viewer.nextText() == #"{"op":"subscribed","sub":"w","restarted":false,"snapshot":1}"#)
                #expect(
                    await viewer.nextText()
                        == #"{"op":"cells","sub":"w","cells":[{"cell":"5:33","lat":-33.9,"lon":151.2,"count":1},{"cell":"14:19","lat":52.6,"lon":13.5,"count":2}]}"#
                )
                try publish([("agg-3", 48.1, 11.6)], to: server)
                let moved = await viewer.nextText()
                #expect(
                    moved
                        == #"{"op":"cells","sub":"w","cells":[{"cell":"5:33","lat":-35.0,"lon":155.0,"count":0},{"cell":"13:19","lat":48.1,"lon":11.6,"count":1}]}"#,
                    "\(moved ?? "nothing")")
                #expect(await viewer.nextText(within: .milliseconds(600)) == nil, "nothing changed, nothing sent")
                try publish([("agg-2", 52.3, 13.2)], to: server)
                #expect(
                    await viewer.nextText()
                        == #"{"op":"cells","sub":"w","cells":[{"cell":"14:19","lat":52.4,"lon":13.3,"count":2}]}"#)
            }
        }

        @Test("bad aggregate requests are bad_request, the running subscription and a bystander untouched")
        func badRequests() async throws {
            try await ServerHarness.withClient(["--max-cells", "5000"]) { server, client in
                let bystander = try await StreamTestClient(client, url: server.url("/v1/stream"))
                bystander.send(raw: #"{"op":"subscribe","sub":"b","devices":["by-1"]}"#)
                #expect(await bystander.nextText()?.contains(#""op":"subscribed""#) == true)
                let attacker = try await StreamTestClient(client, url: server.url("/v1/stream"))
                attacker.send(
                    raw:
                        #"{"op":"subscribe","sub":"ok","area":\#(Self.world),"aggregate":{"cell_deg":30},"min_interval_ms":100}"#
                )
                #expect(await attacker.nextText()?.contains(#""op":"subscribed""#) == true)
                #expect(await attacker.nextText() == #"{"op":"cells","sub":"ok","cells":[]}"#)
                let refused = [
                    #""devices":["x"],"aggregate":{"cell_deg":1}"#,
                    #""area":\#(Self.world),"aggregate":{"cell_deg":0}"#,
                    #""area":\#(Self.world),"aggregate":{"cell_deg":-1}"#,
                    #""area":\#(Self.world),"aggregate":{"cell_deg":91}"#,
                    #""area":\#(Self.world),"aggregate":{"cell_deg":"1"}"#,
                    #""area":\#(Self.world),"aggregate":{"cell_deg":1e300}"#,
                    #""area":\#(Self.world),"aggregate":{}"#,
                    #""area":\#(Self.world),"aggregate":5"#,
                    #""area":\#(Self.world),"aggregate":{"cell_deg":2}"#,
                    #""area":{"bbox":[13,52,13.5,52.5]},"aggregate":{"cell_deg":0.0001}"#,
                    #""area":\#(Self.world),"aggregate":{"cell_deg":30},"min_distance_m":5"#,
                    #""area":{"bbox":[-180,-90,180,90],"aggregate":{"cell_deg":30}},"aggregate":{"cell_deg":30}"#,
                    #""area":{"bbox":[10,-90,10,90]},"aggregate":{"cell_deg":30}"#,
                    #""area":{"center":[0,91],"radius_m":10},"aggregate":{"cell_deg":30}"#,
                ]
                for (index, members) in refused.enumerated() {
                    attacker.send(raw: #"{"op":"subscribe","sub":"bad-\#(index)",\#(members)}"#)
                    let error = await attacker.nextError()
                    #expect(
                        error?.code == .badRequest && error?.failedOp == "subscribe",
                        "\(members): \(String(describing: error))")
                }
                try publish([("by-1", 10, 10)], to: server)
                #expect(await bystander.nextText()?.contains(#""device":"by-1""#) == true)
                let counted = await attacker.nextText()
                #expect(
                    counted == #"{"op":"cells","sub":"ok","cells":[{"cell":"3:6","lat":10.0,"lon":10.0,"count":1}]}"#,
                    "the running aggregated subscription still counts: \(counted ?? "nothing")")
                let errors = try server.metrics()[#"locstream_errors_total{code="bad_request"}"#] ?? 0
                #expect(errors >= refused.count, "each refusal counted")
            }
        }

        @Test("switching 20 times between aggregated and plain areas during a flood: no stale frame")
        func switchesDuringFlood() async throws {
            try await ServerHarness.withClient(ServerHarness.floodLimits) { server, client in
                let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
                let flood = Task {
                    var round = 0
                    while !Task.isCancelled {
                        let locations = (0..<200).map { index in
                            Location(
                                device: "fl-\(index)", lat: 52.4 + Double((index * 7 + round) % 30) * 0.01,
                                lon: 13.2 + Double((index * 13 + round) % 40) * 0.01,
                                ts: 1_764_421_200_000 + Int64(round))
                        }
                        publisher.send(.publish(locations, ack: false))
                        round += 1
                        try? await Task.sleep(for: .milliseconds(20))
                    }
                }
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                var stale = 0
                var cellsFrames = 0
                var locFrames = 0
                for index in 0..<20 {
                    let sub = "s\(index)"
                    let aggregated = index % 2 == 0
                    let extra = aggregated ? #","aggregate":{"cell_deg":0.05},"min_interval_ms":100"# : ""
                    viewer.send(
                        raw: #"{"op":"subscribe","sub":"\#(sub)","area":{"bbox":[13.1,52.3,13.8,52.8]}\#(extra)}"#)
                    var acked = false
                    // Up to 5 s for the ack (a slow sanitizer build), then 250 ms of frames.
                    var deadline = ContinuousClock.now + .seconds(5)
                    while let text = await viewer.nextText(within: max(deadline - ContinuousClock.now, .zero)) {
                        if text.contains(#""op":"subscribed","sub":"\#(sub)""#) {
                            acked = true
                            deadline = ContinuousClock.now + .milliseconds(250)
                            continue
                        }
                        guard acked, let frameSub = text.firstMatch(of: /"sub":"([^"]+)"/)?.output.1 else { continue }
                        if frameSub != sub { stale += 1 }
                        if text.hasPrefix(#"{"op":"cells""#) { cellsFrames += 1 }
                        if text.hasPrefix(#"{"op":"loc""#) { locFrames += 1 }
                        #expect(!text.hasPrefix(#"{"op":"cells""#) || aggregated, "a cells frame in a plain area")
                    }
                    #expect(acked, "subscribe \(sub) was answered")
                }
                flood.cancel()
                #expect(stale == 0, "frames of an older sub after the new ack")
                #expect(cellsFrames >= 10 && locFrames > 0, "cells \(cellsFrames), loc \(locFrames)")
            }
        }

        @Test("a token's devices claim applies to the counts; a token without areas is forbidden")
        func rights() async throws {
            let server = try await ServerHarness(TestTokens.serverOptions())
            let publisher = "Authorization: Bearer " + (try TestTokens.make(areas: true))
            try publish([("ok-1", 1, 1), ("ok-2", 1.2, 1.2), ("no-1", 1.4, 1.4)], to: server, headers: [publisher])
            try await withWebSocketClient { client in
                let narrow = try TestTokens.make(devices: ["ok-*"], areas: true)
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream?token=\(narrow)"))
                viewer.send(raw: #"{"op":"subscribe","sub":"r","area":\#(Self.world),"aggregate":{"cell_deg":10}}"#)
                #expect(await viewer.nextText()?.contains(#""op":"subscribed""#) == true)
                #expect(
                    await viewer.nextText()
                        == #"{"op":"cells","sub":"r","cells":[{"cell":"9:18","lat":1.1,"lon":1.1,"count":2}]}"#)
                let noAreas = try TestTokens.make(areas: false)
                let refused = try await StreamTestClient(client, url: server.url("/v1/stream?token=\(noAreas)"))
                refused.send(raw: #"{"op":"subscribe","sub":"r","area":\#(Self.world),"aggregate":{"cell_deg":10}}"#)
                #expect(await refused.nextError()?.code == .forbidden)
            }
        }

        @Test("Redis: a node counts what another node's publishers sent")
        func redisNodes() async throws {
            let redis = try await RedisHarness()
            let nodes = try await RedisScaleOutTests.nodes(2, on: redis)
            try publish([("rd-1", 40.1, -3.2), ("rd-2", 40.3, -3.4)], to: nodes[0])
            try await withWebSocketClient { client in
                var viewers: [StreamTestClient] = []
                for node in nodes {
                    let viewer = try await StreamTestClient(client, url: node.url("/v1/stream"))
                    viewer.send(
                        raw:
                            #"{"op":"subscribe","sub":"e","area":{"bbox":[-10,35,5,45]},"aggregate":{"cell_deg":1},"min_interval_ms":100}"#
                    )
                    #expect(await viewer.nextText()?.contains(#""op":"subscribed""#) == true)
                    #expect(
                        await viewer.nextText()
                            == #"{"op":"cells","sub":"e","cells":[{"cell":"130:176","lat":40.2,"lon":-3.3,"count":2}]}"#
                    )
                    viewers.append(viewer)
                }
                try publish([("rd-2", 41.5, -3.4)], to: nodes[1])
                for viewer in viewers {
                    #expect(
                        await viewer.nextText()
                            == #"{"op":"cells","sub":"e","cells":[{"cell":"130:176","lat":40.1,"lon":-3.2,"count":1},{"cell":"131:176","lat":41.5,"lon":-3.4,"count":1}]}"#
                    )
                }
            }
        }

        /// Publishes `(device, lat, lon)` updates over HTTP, stamped now.
        private func publish(
            _ updates: [(String, Double, Double)], to server: ServerHarness, headers: [String] = []
        ) throws {
            let ts = Int64(Date().timeIntervalSince1970 * 1000)
            let body = updates.map { #"{"device":"\#($0.0)","lat":\#($0.1),"lon":\#($0.2),"ts":\#(ts)}"# }
            let response = try RawHTTPResponse.fetch(
                port: server.port, method: "POST", path: "/v1/locations", body: "[" + body.joined(separator: ",") + "]",
                headers: headers)
            #expect(response.status == 202, "\(response.body)")
        }
    }
}

extension StreamTestClient {
    /// The next frame as text; nil when none comes within `timeout`.
    fileprivate func nextText(within timeout: Duration = .seconds(5)) async -> String? {
        await nextRaw(within: timeout).map { String(decoding: $0.bytes, as: UTF8.self) }
    }
}
