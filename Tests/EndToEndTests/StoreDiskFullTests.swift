import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd.StoreDurabilityTests {
    /// The disk fills up under a running server (a small tmpfs; skipped where mounting
    /// is not possible): publishes are answered `internal` naming the store and the
    /// reason, `/readyz` answers 503, fan-out goes on, and once space returns the server
    /// recovers by itself and writes what had failed.
    @Suite("store: disk full")
    struct StoreDiskFullTests {
        typealias Durability = EndToEnd.StoreDurabilityTests

        /// A location of `device` carrying 400 bytes of `attrs`, so the disk fills fast.
        static func padded(_ device: String, ts: Int64) -> Location {
            var location = testLocation(device, ts: ts)
            location.attrs = .object(["pad": .string(String(repeating: "x", count: 400))])
            return location
        }

        @Test(
            "disk full: internal naming the disk, /readyz 503, fan-out goes on; space back: recovery, nothing lost",
            .timeLimit(.minutes(1)))
        func diskFull() async throws {
            guard let mount = try TmpfsMount(options: "size=2m", for: "store: disk full") else { return }
            let directory = mount.path + "/data"
            let database = directory + "/locstream.db"
            let devices = (0..<10).map { "fill-\($0)" }
            let client = try await WebSocketClient.start()
            let server = try await Durability.server(directory)
            var acked: [Int64] = []
            var failed: [Int64] = []
            try await server.withBystander { bystander in
                let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
                var ts = StoreFlood.firstTS
                func publish() async -> ServerMessage? {
                    ts += 1
                    publisher.send(.publish(devices.map { Self.padded($0, ts: ts) }, ack: true))
                    let answer = await publisher.next(within: .seconds(10))
                    if answer == .published(count: devices.count) { acked.append(ts) } else { failed.append(ts) }
                    return answer
                }
                #expect(await publish() == .published(count: devices.count))
                let filler = try mount.fill(leaving: 96 * 1024)
                var refusal: ProtocolError?
                for _ in 0..<2_000 where refusal == nil {
                    if case .error(let error)? = await publish() { refusal = error }
                }
                let error = try #require(refusal, "publishes fail once the disk is full")
                #expect(error.code == .internal)
                #expect(
                    error.message.hasPrefix("publish outcome unknown:") && error.message.contains(database)
                        && error.message.contains("database or disk is full"),
                    "names the store and the reason: \(error.message)")
                #expect(server.readyStatus == 503, "not ready while the disk is full")

                // Known devices are still served from memory, and what is published is
                // still delivered (it waits in the store's queue).
                #expect(try Durability.fetchDevice(devices[0], on: server).status == 200)
                await bystander.expectUnharmed()
                let post = try RawHTTPResponse.fetch(
                    port: server.port, method: "POST", path: "/v1/locations",
                    body: EndToEnd.PublishRateTests.batch(devices: ["posted"]))
                #expect(
                    post.status == 503 && post.body.contains("database or disk is full"),
                    "POST: \(post.status) \(post.body)")
                #expect(server.readyStatus == 503, "still not ready")

                try FileManager.default.removeItem(atPath: filler)
                #expect(
                    await EndToEnd.RedisScaleOutTests.eventually(within: .seconds(10)) { server.readyStatus == 200 },
                    "ready again once space returns")
                #expect(await publish() == .published(count: devices.count), "publishes are acknowledged again")
                #expect(try server.metrics()["locstream_store_errors_total"] ?? 0 > 0, "the failed commits are counted")
            }
            #expect(await server.stop() == 0, "a clean exit")

            let restarted = try await Durability.server(directory)
            for device in devices {
                let stored = Set(
                    try await Durability.history(of: device, on: restarted, client: client).map(\.location.ts))
                #expect(Set(acked).isSubset(of: stored), "\(device): every acknowledged location is stored")
                #expect(Set(failed).isSubset(of: stored), "\(device): those that failed were written on recovery")
            }
            #expect(try Durability.fetchDevice("posted", on: restarted).status == 200, "the refused POST too")
            await client.shutdown()
            withExtendedLifetime(mount) {}
        }
    }
}
