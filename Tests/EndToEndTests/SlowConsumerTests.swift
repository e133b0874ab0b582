import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// A client that stops reading must not hurt the others, nor grow the server.
    @Suite("slow consumers")
    struct SlowConsumerTests {
        private let devices = (0..<40).map { "veh-\($0)" }

        /// Publishes `rounds` positions of every device, waiting for each ack, then
        /// calls `afterRound` with the round's number.
        private func flood(
            _ publisher: StreamTestClient, rounds: Int, afterRound: (Int) async -> Void = { _ in }
        ) async {
            for round in 1...rounds {
                publisher.send(.publish(devices.map { testLocation($0, lat: Double(round % 90)) }, ack: true))
                _ = await publisher.next()
                await afterRound(round)
            }
        }

        @Test(
            "conflate: a stalled viewer gets the newest position of every device once it reads; others see every frame")
        func conflate() async throws {
            try await ServerHarness.withClient(ServerHarness.floodLimits + ["--max-queued-bytes", "65536"]) {
                server, client in
                let url = server.url("/v1/stream")
                let stalled = try await StreamTestClient(client, url: url)
                stalled.send(subscribe("slow", devices, snapshot: false))
                #expect(await stalled.next() == .subscribed(sub: "slow", restarted: false, snapshot: 0))
                let healthy = try await StreamTestClient(client, url: url)
                healthy.send(subscribe("ok", devices, snapshot: false))
                #expect(await healthy.next() == .subscribed(sub: "ok", restarted: false, snapshot: 0))
                let publisher = try await StreamTestClient(client, url: url)
                let rssBefore = try Bystander.rssKiB(server.pid)

                let rounds = 1500
                var seen = 0
                func readHealthy(upTo count: Int) async {
                    while seen < count, case .loc? = await healthy.next(within: .seconds(10)) { seen += 1 }
                }
                // The healthy viewer reads as the flood goes, never more than 4 rounds (about
                // 24 KB) behind: under the 64 KiB limit however slow the machine is.
                await flood(publisher, rounds: rounds) { round in await readHealthy(upTo: (round - 4) * devices.count) }
                await readHealthy(upTo: rounds * devices.count)
                #expect(seen == rounds * devices.count, "the healthy viewer misses nothing")
                let metrics = try RawHTTPResponse.fetch(port: server.port, path: "/metrics").body
                #expect(
                    !metrics.contains(#"frames_dropped_total{reason="conflated"} 0"#),
                    "the stalled viewer was conflated")
                #expect(
                    try Bystander.rssKiB(server.pid) - rssBefore < SanitizerScale.memoryKiB(64 * 1024),
                    "server memory stays bounded (KiB)")

                var newest: [String: UInt64] = [:]
                var previous: [String: UInt64] = [:]
                var reordered = 0
                while case .loc(_, let location)? = await stalled.next(within: .seconds(2)) {
                    if location.seq <= previous[location.device, default: 0] { reordered += 1 }
                    previous[location.device] = location.seq
                    newest[location.device] = max(newest[location.device, default: 0], location.seq)
                }
                #expect(reordered == 0, "order per device is kept")
                #expect(
                    devices.allSatisfy { newest[$0] == UInt64(rounds) }, "the newest position of every device arrives")
            }
        }

        @Test("disconnect: a stalled viewer is closed with 4008 and counted")
        func disconnect() async throws {
            let server = try await ServerHarness(
                ServerHarness.floodLimits + ["--max-queued-bytes", "65536", "--slow-consumer", "disconnect"])
            let client = try await WebSocketClient.start()
            let url = server.url("/v1/stream")
            let stalled = try await StreamTestClient(client, url: url)
            stalled.send(subscribe("slow", devices, snapshot: false))
            _ = await stalled.next()
            let publisher = try await StreamTestClient(client, url: url)
            // The server drops a peer that has not read its close frame within 5 s, so the
            // viewer reads as soon as it is counted closed, not after the whole flood (which
            // took more than 5 s on a loaded CI machine).
            var drained = false
            await flood(publisher, rounds: 1500) { round in
                guard !drained, round % 25 == 0,
                    let metrics = try? RawHTTPResponse.fetch(port: server.port, path: "/metrics").body,
                    metrics.contains("locstream_slow_consumers_closed_total 1")
                else { return }
                drained = true
                while await stalled.nextRaw(within: .seconds(3)) != nil {}
            }
            while await stalled.nextRaw(within: .seconds(3)) != nil {}
            #expect(drained, "the viewer was closed during the flood")
            #expect(stalled.connection.peerClose?.code == 4008)
            let metrics = try RawHTTPResponse.fetch(port: server.port, path: "/metrics").body
            #expect(metrics.contains("locstream_slow_consumers_closed_total 1"))
            #expect(await server.logLine(containing: "slow consumer closed") != nil)
            await client.shutdown()
        }

    }
}
