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

        /// Whether `message` gives a full disk as the reason, in SQLite's words or the system's.
        static func saysDiskFull(_ message: String) -> Bool {
            message.contains("database or disk is full") || message.contains("No space left on device")
        }

        /// A server whose data directory is on a 2 MiB tmpfs of its own.
        struct SmallDisk {
            let mount: TmpfsMount
            /// The data directory, on the tmpfs.
            let directory: String
            let client: WebSocketClient
            let server: ServerHarness
        }

        /// Runs `body` with a server (started with `extra` options) on a small disk, then
        /// shuts its client down and unmounts; skipped, saying so, for `test` where a
        /// tmpfs cannot be mounted.
        static func onSmallDisk(
            _ test: String, _ extra: [String] = [], _ body: (SmallDisk) async throws -> Void
        ) async throws {
            guard let mount = try TmpfsMount(options: "size=2m", for: test) else { return }
            let directory = mount.path + "/data"
            let client = try await WebSocketClient.start()
            let disk = SmallDisk(
                mount: mount, directory: directory, client: client,
                server: try await Durability.server(directory, extra))
            try await withCleanup {
                try await body(disk)
            } cleanup: {
                await client.shutdown()
            }
        }

        @Test(
            "disk full: internal naming the disk, /readyz 503, fan-out goes on; space back: recovery, nothing lost",
            .timeLimit(.minutes(1)))
        func diskFull() async throws {
            try await Self.onSmallDisk("store: disk full") { disk in
                let (mount, directory, client, server) = (disk.mount, disk.directory, disk.client, disk.server)
                let database = directory + "/locstream.db"
                let devices = (0..<10).map { "fill-\($0)" }
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
                            && Self.saysDiskFull(error.message),
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
                        post.status == 503 && Self.saysDiskFull(post.body),
                        "POST: \(post.status) \(post.body)")
                    #expect(server.readyStatus == 503, "still not ready")

                    try FileManager.default.removeItem(atPath: filler)
                    #expect(
                        await eventually(within: .seconds(10)) {
                            server.readyStatus == 200
                        },
                        "ready again once space returns")
                    #expect(await publish() == .published(count: devices.count), "publishes are acknowledged again")
                    #expect(
                        try server.metrics()["locstream_store_errors_total"] ?? 0 > 0, "the failed commits are counted")
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
            }
        }

        /// Sends `batches` publishes of 1000 locations of `devices`, with ack, from each of
        /// `connections` connections to `url` at once; returns how many answers began how
        /// (their first 24 characters).
        static func publishAtOnce(
            _ devices: [String], connections: Int, batches: Int, on url: String, client: WebSocketClient
        ) async -> [String: Int] {
            await withTaskGroup(of: [String].self) { group in
                for _ in 0..<connections {
                    group.addTask {
                        guard let publisher = try? await StreamTestClient(client, url: url) else {
                            return ["no connection"]
                        }
                        for _ in 0..<batches {
                            publisher.send(
                                .publish((0..<1000).map { testLocation(devices[$0 % devices.count]) }, ack: true))
                        }
                        var answers: [String] = []
                        for _ in 0..<batches {
                            guard case .error(let error)? = await publisher.next(within: .seconds(20)) else {
                                answers.append("not an error")
                                continue
                            }
                            answers.append(String(error.message.prefix(24)))
                        }
                        return answers
                    }
                }
                var counts: [String: Int] = [:]
                for await answers in group { for answer in answers { counts[answer, default: 0] += 1 } }
                return counts
            }
        }

        @Test(
            "a disk that stays full: the queue fills, publishes are refused undelivered; SIGTERM exits; seqs never reused",
            .timeLimit(.minutes(1)))
        func diskStaysFull() async throws {
            try await Self.onSmallDisk("store: a disk that stays full", ["--max-message-bytes", "1048576"]) { disk in
                let (mount, directory, client, server) = (disk.mount, disk.directory, disk.client, disk.server)
                let devices = (0..<10).map { "full-\($0)" }
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                viewer.send(subscribe("V", devices + ["never"], snapshot: false))
                #expect(await viewer.next() == .subscribed(sub: "V", restarted: false, snapshot: 0))
                let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
                publisher.send(.publish(devices.map { testLocation($0) }, ack: true))
                #expect(await publisher.next() == .published(count: devices.count))
                _ = try mount.fill(leaving: 8 * 1024)

                // Each publish is delivered and waits in the store's queue, answered "outcome
                // unknown", until the queue holds 65,536 updates; then publishes are refused.
                // 64,000 from 8 connections at once (their failed commits grouped), then
                // halving batches fill what room is left.
                let answers = await Self.publishAtOnce(
                    devices, connections: 8, batches: 8, on: server.url("/v1/stream"), client: client)
                print("store: answers while the disk stays full: \(answers)")
                #expect(answers == ["publish outcome unknown:": 64], "\(answers)")
                var refusal: String?
                var size = 1000
                while size > 0 {
                    publisher.send(.publish((0..<size).map { testLocation(devices[$0 % devices.count]) }, ack: true))
                    let message = await publisher.nextError()?.message ?? "no answer"
                    if message.hasPrefix("publish failed:") {
                        refusal = refusal ?? message
                        size /= 2
                    }
                }
                let refused = try #require(refusal, "publishes are refused once the queue is full")
                #expect(refused.contains("65536 updates are waiting to be written"), "\(refused)")
                publisher.send(.publish([testLocation("never")], ack: true))
                #expect(await publisher.nextError()?.message.hasPrefix("publish failed:") == true)
                #expect(try Durability.fetchDevice("never", on: server).status == 404, "a refused publish is not kept")
                #expect(server.readyStatus == 503)

                var highest: [String: UInt64] = [:]
                while let frame = await viewer.next(within: .seconds(1)) {
                    guard case .loc("V", let location) = frame else { continue }
                    #expect(location.device != "never", "a refused publish is not delivered")
                    highest[location.device] = max(highest[location.device] ?? 0, location.seq)
                }
                let started = ContinuousClock.now
                #expect(await server.stop() == 0, "SIGTERM ends the server although its store cannot commit")
                print("store: stopped in \(ContinuousClock.now - started) with the disk full")
                let lost = await server.logLine(containing: "store stopped with updates it could not write") ?? ""
                #expect(lost.contains("updates=") && lost.contains("reason="), "the loss is logged: \(lost)")
                try FileManager.default.removeItem(atPath: mount.path + "/filler")

                let restarted = try await Durability.server(directory)
                let opened = await restarted.logLine(containing: "store opened") ?? ""
                #expect(
                    opened.contains("recovered_from_crash=true"),
                    "what could not be written counts as a crash: \(opened)")
                let next = try await Durability.publishOnce(devices, on: restarted, client: client)
                for device in devices {
                    let seen = try #require(highest[device], "\(device) was delivered before the stop")
                    #expect(
                        next[device]?.seq ?? 0 > seen, "\(device): \(next[device]?.seq ?? 0) after \(seen) delivered")
                }
            }
        }
    }
}
