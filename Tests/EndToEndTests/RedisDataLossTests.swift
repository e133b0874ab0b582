import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// Redis losing data under running nodes (flushed, restarted empty or from an old
    /// append-only file, hung): seqs never repeat or go backwards, subscribers keep
    /// receiving, and the nodes say what happened.
    @Suite("Redis data loss")
    struct RedisDataLossTests {
        typealias Scale = RedisScaleOutTests

        /// Publishes `device` with acks from `publisher` until cancelled (or 60 s);
        /// returns the acks and the `internal` errors, by message.
        static func flood(_ publisher: sending StreamTestClient, _ device: String) -> Task<(Int, [String]), Never> {
            Task {
                var (accepted, refused) = (0, [String]())
                let deadline = ContinuousClock.now + .seconds(60)
                while !Task.isCancelled, ContinuousClock.now < deadline {
                    publisher.send(.publish([testLocation(device)], ack: true))
                    switch await publisher.next() {
                    case .published?: accepted += 1
                    case .error(let error)? where error.code == .internal: refused.append(error.message)
                    default: break
                    }
                    try? await Task.sleep(for: .milliseconds(2))
                }
                return (accepted, refused)
            }
        }

        @Test("FLUSHALL during a flood: seqs jump above the old ones, subscribers keep receiving, the loss is logged")
        func flushAllDuringFlood() async throws {
            let redis = try await RedisHarness()
            let watch = try await Scale.CrossNodeWatch(on: redis, watching: "veh-1")
            let (nodes, client, viewer) = (watch.nodes, watch.client, watch.viewer)
            try await nodes[1].withBystander { _ in
                let flood = Self.flood(try await StreamTestClient(client, url: nodes[0].url("/v1/stream")), "veh-1")
                let before = await Scale.seqs(of: "V", from: viewer, count: 50)
                #expect(before.count == 50, "the viewer receives the flood")

                _ = try redis.cli("FLUSHALL")
                let after = await Scale.seqs(of: "V", from: viewer, count: 100)
                flood.cancel()
                let (accepted, refused) = await flood.value
                #expect(after.count == 100, "the viewer keeps receiving after the flush (got \(after.count))")
                let all = before + after
                #expect(zip(all, all.dropFirst()).allSatisfy { $0 < $1 }, "seqs only go up across the flush")
                #expect(refused.isEmpty && accepted >= 100, "publishes go on: \(refused.prefix(3))")

                let late = try await StreamTestClient(client, url: nodes[1].url("/v1/stream"))
                late.send(subscribe("L", ["veh-1"]))
                #expect(await late.next() == .subscribed(sub: "L", restarted: false, snapshot: 1))
                if case .loc("L", let snapshot)? = await late.next() {
                    #expect(snapshot.seq >= all.last ?? 0, "a new subscriber's snapshot is not older")
                } else {
                    Issue.record("no snapshot after the flush")
                }
                for node in nodes {
                    #expect(await node.logLine(containing: "redis lost its data") != nil, "each node logs the loss")
                    let metrics = try node.metrics()
                    #expect(metrics["locstream_broker_state_resets_total"] == 1, "counted once per node")
                    #expect(metrics["locstream_broker_missed_updates_total"] == 0, "the jump is not counted as missed")
                    #expect(node.readyStatus == 200)
                }
            }
            await client.shutdown()
        }

        @Test("Redis restarted empty while the only node that saw a device is paused: its seq still goes on upwards")
        func emptyRestartWhileTheWitnessSleeps() async throws {
            let redis = try await RedisHarness()
            let nodes = try await Scale.nodes(2, on: redis, ServerHarness.floodLimits)
            let client = try await WebSocketClient.start()
            // The body pauses node 0; it resumes only once the bystander has been judged.
            defer { kill(nodes[0].pid, SIGCONT) }
            try await nodes[1].withBystander { _ in
                let witness = try await StreamTestClient(client, url: nodes[0].url("/v1/stream"))
                for batch in 0..<5 {
                    witness.send(
                        .publish((0..<1000).map { _ in testLocation("veh-10", lat: Double(batch)) }, ack: true))
                    #expect(await witness.next() == .published(count: 1000))
                }
                let seen = try #require(try Scale.storedSeq(of: "veh-10", on: nodes[0]))

                kill(nodes[0].pid, SIGSTOP)
                try await redis.restart()
                #expect(await eventually { nodes[1].readyStatus == 200 }, "node 1 reconnects")
                let other = try await StreamTestClient(client, url: nodes[1].url("/v1/stream"))
                #expect(await Scale.publishOnceAccepted(testLocation("veh-10", lat: 9), from: other))
                let next = try #require(try Scale.storedSeq(of: "veh-10", on: nodes[1]))
                #expect(next > seen, "seq \(next) after \(seen), though no running node saw the device")

                let resumed = try await StreamTestClient(client, url: nodes[1].url("/v1/stream"))
                resumed.send(subscribe("R", ["veh-10"], since: ["veh-10": seen]))
                guard case .subscribed("R", _, let replayed)? = await resumed.next() else {
                    Issue.record("no subscribed")
                    return
                }
                other.send(.publish([testLocation("veh-10", lat: 10)], ack: true))
                #expect(await other.next() == .published(count: 1))
                let frames = await Scale.seqs(of: "R", from: resumed, count: replayed + 1)
                #expect(
                    frames.count == replayed + 1 && frames.allSatisfy { $0 > seen },
                    "since \(seen) gets only later seqs")
                #expect(await nodes[1].logLine(containing: "redis lost its data") != nil)
                #expect(try nodes[1].metrics()["locstream_broker_state_resets_total"] == 1)
            }
            await client.shutdown()
        }

        @Test("a publish sent to a hung Redis says its outcome is unknown, and is found stored once Redis wakes")
        func outcomeUnknownWhenHung() async throws {
            let redis = try await RedisHarness()
            let node = try await Scale.nodes(1, on: redis, ["--redis-timeout-ms", "300"])[0]
            let client = try await WebSocketClient.start()
            try await node.withBystander { _ in
                let publisher = try await StreamTestClient(client, url: node.url("/v1/stream"))
                publisher.send(.publish([testLocation("veh-9", lat: 1)], ack: true))
                #expect(await publisher.next() == .published(count: 1))

                // When the bystander's publication reaches the hung Redis first, ours waits in
                // the queue and is never written: "publish failed" is the right answer then,
                // and the attempt is repeated until ours is the one written.
                var unknownLat: Double?
                for lat in [33.0, 34, 35, 36, 37] where unknownLat == nil {
                    redis.signal(SIGSTOP)
                    publisher.send(.publish([testLocation("veh-9", lat: lat)], ack: true))
                    let hung = await publisher.nextError()
                    #expect(hung?.code == .internal)
                    if hung?.message.hasPrefix("publish outcome unknown:") == true {
                        unknownLat = lat
                    } else {
                        #expect(hung?.message.hasPrefix("publish failed:") == true, "\(hung?.message ?? "")")
                        redis.signal(SIGCONT)
                        #expect(await eventually { node.readyStatus == 200 })
                    }
                }
                let lat = try #require(unknownLat, "a publish written to the hung Redis says its outcome is unknown")
                #expect(await eventually(within: .seconds(5)) { node.readyStatus == 503 }, "not ready while hung")
                publisher.send(.publish([testLocation("veh-9", lat: 50)], ack: true))
                let refused = await publisher.nextError()
                #expect(refused?.message.hasPrefix("publish failed:") == true, "not sent: \(refused?.message ?? "")")

                redis.signal(SIGCONT)
                #expect(await eventually { node.readyStatus == 200 }, "recovers once Redis answers again")
                let stored = try RawHTTPResponse.fetch(port: node.port, path: "/v1/devices/veh-9")
                #expect(
                    stored.status == 200 && stored.body.contains("\"lat\":\(lat)"),
                    "the unknown one was stored: \(stored.body)"
                )
                #expect(await node.logLine(containing: "broker operation failed") != nil)
                #expect(node.log.contains("unknown"), "the log says the outcome is unknown")
            }
            await client.shutdown()
        }

        @Test(
            "Redis back from an append-only file without its latest write: snapshots are not older than frames delivered"
        )
        func restartLosesTheLatestWrite() async throws {
            let redis = try await RedisHarness(persistent: true)
            let watch = try await Scale.CrossNodeWatch(on: redis, watching: "veh-20")
            let (nodes, client, viewer, publisher) = (watch.nodes, watch.client, watch.viewer, watch.publisher)
            try await nodes[1].withBystander { _ in
                publisher.send(.publish([testLocation("veh-20", lat: 1)], ack: true))
                #expect(await publisher.next() == .published(count: 1))
                let first = try #require(await Scale.seqs(of: "V", from: viewer, count: 1).first)
                try redis.keepData()
                publisher.send(.publish([testLocation("veh-20", lat: 2)], ack: true))
                #expect(await publisher.next() == .published(count: 1))
                let delivered = try #require(await Scale.seqs(of: "V", from: viewer, count: 1).first)
                #expect(delivered > first)

                try await redis.restartFromKeptData()
                #expect(await eventually { nodes.allSatisfy { $0.readyStatus == 200 } }, "both nodes reconnect")
                #expect(try redis.cli("HGET", "locstream:last", "veh-20").contains(#""lat":1"#), "Redis lost the write")
                viewer.send(subscribe("S", ["veh-20"]))
                #expect(await viewer.next() == .subscribed(sub: "S", restarted: true, snapshot: 1))
                guard case .loc("S", let snapshot)? = await viewer.next() else {
                    Issue.record("no snapshot")
                    return
                }
                #expect(snapshot.seq == delivered && snapshot.lat == 2, "the snapshot is what the node delivered")
                #expect(try Scale.storedSeq(of: "veh-20", on: nodes[1]) == delivered, "so is GET /v1/devices")

                publisher.send(.publish([testLocation("veh-20", lat: 3)], ack: true))
                #expect(await publisher.next() == .published(count: 1))
                let next = try #require(await Scale.seqs(of: "S", from: viewer, count: 1).first)
                #expect(next > delivered, "the lost seq \(delivered) is not handed out again (got \(next))")
                #expect(await nodes[1].logLine(containing: "redis lost its data") != nil)
            }
            await client.shutdown()
        }
    }
}
