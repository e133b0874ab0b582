import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// Hostile area subscriptions, each beside a bystander: boxes and discs at the
    /// antimeridian and the poles, and areas that reach devices the token may not see.
    @Suite("hostile areas")
    struct HostileAreaTests {
        private func area(_ sub: String, _ area: Area, snapshot: Bool = true) -> ClientMessage {
            .subscribe(SubscribeRequest(sub: sub, target: .area(area), snapshot: snapshot))
        }

        @Test("a full-width box is 360° wide: the world and an equator band are too large, 180…-180 has no width")
        func fullWidthBoxes() async throws {
            try await ServerHarness.withClient(["--log-level", "debug"], bystander: .standard) { server, client in
                let attacker = try await StreamTestClient(client, url: server.url("/v1/stream"))
                let refused: [(Area, String)] = [
                    (.bbox(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90), "km²"),
                    (.bbox(minLon: -180, minLat: -10, maxLon: 180, maxLat: 10), "km²"),
                    (.bbox(minLon: 179.5, minLat: -10, maxLon: 179, maxLat: 10), "km²"),
                    (.bbox(minLon: 180, minLat: -90, maxLon: -180, maxLat: 90), "no width"),
                    (.bbox(minLon: 0, minLat: -1, maxLon: -0.0, maxLat: 1), "no width"),
                ]
                for (index, (shape, reason)) in refused.enumerated() {
                    attacker.send(area("w\(index)", shape))
                    let error = await attacker.nextError()
                    #expect(error?.code == .badRequest && error?.message.contains(reason) == true, "\(shape)")
                    #expect(error?.failedOp == "subscribe")
                }
                #expect(try server.metrics()[#"locstream_errors_total{code="bad_request"}"#] == refused.count)
                #expect(await server.logLine(containing: "no width") != nil, "the refusal is logged")
                #expect(try server.metrics()["locstream_hub_entries"] == 1, "only the bystander's viewer is registered")

                // A full-width box under the limit is accepted and holds both sides of ±180.
                attacker.send(area("cap", .bbox(minLon: -180, minLat: 89, maxLon: 180, maxLat: 90)))
                #expect(await attacker.next() == .subscribed(sub: "cap", restarted: false, snapshot: 0))
                let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
                let devices = [("east", 179.99), ("west", -180.0), ("date", 180.0), ("zero", -0.0)]
                publisher.send(
                    .publish(
                        devices.map { testLocation($0.0, lat: 89.5, lon: $0.1) } + [testLocation("south")], ack: true))
                var seen: Set<String> = []
                while seen.count < devices.count, case .loc(_, let location)? = await attacker.next() {
                    seen.insert(location.device)
                }
                #expect(seen == Set(devices.map(\.0)))
            }
        }

        @Test("polar discs and wide boxes cost little memory, and give it back when they end")
        func polarDiscs() async throws {
            try await ServerHarness.withClient(bystander: .init(maxRSSGrowthKiB: 48 * 1024)) { server, client in
                let url = server.url("/v1/stream")
                let shapes: [Area] = [
                    .circle(lon: 0, lat: 90, radiusMeters: 280_000), .circle(lon: 140, lat: -90, radiusMeters: 280_000),
                    .circle(lon: -179.9, lat: 88.5, radiusMeters: 250_000),
                    .bbox(minLon: -179.9, minLat: 88, maxLon: 179.9, maxLat: 90),
                ]
                let publisher = try await StreamTestClient(client, url: url)
                var rssAfterRound: [Int] = []
                let baseline = try Bystander.rssKiB(server.pid)
                for round in 0..<3 {
                    var viewers: [StreamTestClient] = []
                    for index in 0..<24 {
                        let viewer = try await StreamTestClient(client, url: url)
                        viewer.send(area("polar-\(index)", shapes[index % shapes.count], snapshot: false))
                        #expect(
                            await viewer.next() == .subscribed(sub: "polar-\(index)", restarted: false, snapshot: 0))
                        viewers.append(viewer)
                    }
                    publisher.send(.publish([testLocation("pole-\(round)", lat: 89.9, lon: -42)], ack: true))
                    #expect(await publisher.next() == .published(count: 1))
                    if case .loc(_, let location)? = await viewers[0].next() {
                        #expect(location.device == "pole-\(round)", "a device near the pole reaches the disc around it")
                    }
                    #expect(
                        try Bystander.rssKiB(server.pid) - baseline < SanitizerScale.memoryKiB(40 * 1024),
                        "24 polar areas cost little (KiB)")
                    for viewer in viewers { viewer.connection.close(code: 1000) }
                    let deadline = ContinuousClock.now + .seconds(10)
                    while try server.metrics()["locstream_hub_entries"] != 1, ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(20))
                    }
                    #expect(try server.metrics()["locstream_hub_entries"] == 1, "only the bystander is left registered")
                    rssAfterRound.append(try Bystander.rssKiB(server.pid))
                }
                #expect(rssAfterRound[2] - rssAfterRound[0] < 8 * 1024, "no growth on repeat: \(rssAfterRound) KiB")
            }
        }

        @Test("an area shows only the devices the token's devices claim allows, in snapshots, locs and leaves")
        func rightsInAreas() async throws {
            try await ServerHarness.withClient(
                TestTokens.serverOptions(), bystander: .init(token: try TestTokens.make(subject: "bystander"))
            ) { server, client in
                let url = server.url("/v1/stream")
                let publisher = try await StreamTestClient(
                    client, url: url + "?token=" + (try TestTokens.make(subject: "feeder", publish: ["*"])))
                func publish(_ devices: [String], lat: Double) async {
                    publisher.send(.publish(devices.map { testLocation($0, lat: lat, lon: 13.4) }, ack: true))
                    #expect(await publisher.next() == .published(count: devices.count))
                }
                await publish(["veh-1", "secret-9"], lat: 52.5)
                let viewerToken = try TestTokens.make(subject: "fleet", devices: ["veh-*"], areas: true)
                let viewer = try await StreamTestClient(client, url: url + "?token=" + viewerToken)
                viewer.send(area("city", .bbox(minLon: 13, minLat: 52, maxLon: 14, maxLat: 53)))
                #expect(
                    await viewer.next() == .subscribed(sub: "city", restarted: false, snapshot: 1),
                    "secret-9 not counted")
                guard case .loc(_, let first)? = await viewer.next() else { throw HostileAreaError.noFrame }
                #expect(first.device == "veh-1")
                await publish(["secret-9", "veh-2", "secret-9"], lat: 52.6)
                await publish(["secret-9", "veh-1"], lat: 40)
                await publish(["veh-3"], lat: 52.7)
                var shown: [String] = []
                while shown.last != "loc veh-3", let frame = await viewer.next() {
                    switch frame {
                    case .loc(_, let location): shown.append("loc \(location.device)")
                    case .leave(_, let device): shown.append("leave \(device)")
                    default: shown.append("\(frame)")
                    }
                }
                #expect(shown == ["loc veh-2", "leave veh-1", "loc veh-3"], "never a frame of secret-9")

                func status(_ device: String, _ token: String) throws -> Int {
                    try RawHTTPResponse.fetch(
                        port: server.port, path: "/v1/devices/\(device)", headers: ["Authorization: Bearer \(token)"]
                    ).status
                }
                #expect(
                    try status("secret-9", viewerToken) == 403 && status("veh-2", viewerToken) == 200, "HTTP agrees")

                // A refresh with fewer rights narrows the area from then on, without a restart.
                viewer.send(.auth(token: try TestTokens.make(subject: "fleet", devices: ["veh-2"], areas: true)))
                guard case .authed? = await viewer.next() else { throw HostileAreaError.noFrame }
                await publish(["veh-3", "veh-2"], lat: 52.8)
                guard case .loc(_, let narrowed)? = await viewer.next() else { throw HostileAreaError.noFrame }
                #expect(narrowed.device == "veh-2", "veh-3 is no longer shown")
            }
        }

        @Test("area viewers whose tokens hold a thousand patterns each do not slow the fan-out")
        func manyPatternTokens() async throws {
            try await ServerHarness.withClient(
                TestTokens.serverOptions(ServerHarness.floodLimits),
                bystander: .init(token: try TestTokens.make(subject: "bystander"))
            ) { server, client in
                let url = server.url("/v1/stream")
                // Too long for an upgrade's 8 KiB of headers, so it comes by the auth op.
                let wide = try TestTokens.make(subject: "wide", devices: (0..<1000).map { "v\($0)*" }, areas: true)
                var viewers: [StreamTestClient] = []
                for index in 0..<50 {
                    let viewer = try await StreamTestClient(client, url: url)
                    viewer.send(.auth(token: wide))
                    guard case .authed? = await viewer.next() else { throw HostileAreaError.noFrame }
                    viewer.send(
                        area("a\(index)", .bbox(minLon: 13, minLat: 52, maxLon: 14, maxLat: 53), snapshot: false))
                    #expect(await viewer.next() == .subscribed(sub: "a\(index)", restarted: false, snapshot: 0))
                    viewers.append(viewer)
                }
                // Every publication lands in all fifty areas and none is allowed: 500,000
                // rights checks. Testing a thousand globs each took minutes; now seconds.
                let publisher = try await StreamTestClient(
                    client, url: url + "?token=" + (try TestTokens.make(subject: "feeder", publish: ["*"])))
                let started = ContinuousClock.now
                for batch in 0..<20 {
                    publisher.send(
                        .publish((0..<500).map { testLocation("h\(batch)-\($0)", lat: 52.5, lon: 13.5) }, ack: true))
                    #expect(await publisher.next(within: .seconds(30)) == .published(count: 500))
                }
                let elapsed = ContinuousClock.now - started
                #expect(elapsed < .seconds(15), "10,000 publications into 50 wide-token areas took \(elapsed)")
                viewers[0].send(.ping(t: .integer(1)))
                #expect(await viewers[0].next() == .pong(t: .integer(1)), "no hidden device was shown")
            }
        }

        @Test("conflate: a stalled area viewer over 10,000 distinct devices stays open, bounded, and gets the newest")
        func stalledOverManyDevices() async throws {
            try await ServerHarness.withClient(
                ServerHarness.floodLimits + ["--max-queued-bytes", "65536"], bystander: .standard
            ) { server, client in
                let url = server.url("/v1/stream")
                let stalled = try await StreamTestClient(client, url: url)
                stalled.send(area("all", .bbox(minLon: 4.9, minLat: 0, maxLon: 5.1, maxLat: 10), snapshot: false))
                #expect(await stalled.next() == .subscribed(sub: "all", restarted: false, snapshot: 0))
                let publisher = try await StreamTestClient(client, url: url)
                let rssBefore = try Bystander.rssKiB(server.pid)
                let devices = (0..<10_000).map { "many-\($0)" }
                for round in 1...5 {
                    for batch in stride(from: 0, to: devices.count, by: 1000) {
                        let locations = devices[batch..<batch + 1000].map {
                            testLocation($0, lat: Double(round), lon: 5)
                        }
                        publisher.send(.publish(Array(locations), ack: true))
                        #expect(await publisher.next(within: .seconds(20)) == .published(count: 1000))
                    }
                }
                #expect(
                    try Bystander.rssKiB(server.pid) - rssBefore < SanitizerScale.memoryKiB(64 * 1024),
                    "server memory stays bounded (KiB)")
                // Read until the newest position arrives (the stream keeps each device's place,
                // so it comes last); nothing may follow it but the answer to a ping.
                var newest: Location?
                var frames = 0
                while newest == nil, case .loc(_, let location)? = await stalled.next(within: .seconds(30)) {
                    frames += 1
                    if location.device == devices.last, location.seq == 5 { newest = location }
                }
                #expect(stalled.connection.peerClose == nil, "conflate never closes")
                #expect(newest != nil, "the newest position arrives")
                #expect(frames > 0 && frames < 5 * devices.count, "\(frames) frames: conflated, not all 50,000")
                stalled.send(.ping(t: .integer(7)))
                #expect(
                    await stalled.next() == .pong(t: .integer(7)),
                    "the newest frame was the last one, and the connection still answers")
                let metrics = try server.metrics()
                #expect(metrics["locstream_slow_consumers_closed_total"] == 0)
                #expect(metrics[#"locstream_frames_dropped_total{reason="conflated"}"#, default: 0] > 0)
            }
        }

        enum HostileAreaError: Error { case noFrame }
    }
}
