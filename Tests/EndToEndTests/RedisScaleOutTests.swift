import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// Several nodes sharing one stream through a real `redis-server` on loopback.
    @Suite("scale-out on Redis")
    struct RedisScaleOutTests {
        /// `count` nodes on `redis`, each ready (its `/readyz` says 200).
        static func nodes(_ count: Int, on redis: RedisHarness, _ extra: [String] = []) async throws -> [ServerHarness]
        {
            var nodes: [ServerHarness] = []
            for index in 0..<count {
                nodes.append(try await ServerHarness(redis.serverArguments + ["--node", "node-\(index)"] + extra))
            }
            for node in nodes { #expect(await eventually { node.readyStatus == 200 }, "node ready") }
            return nodes
        }

        /// The seqs of `count` `loc` frames of `sub` (fewer after 5 s of silence). Seqs
        /// on Redis start above an epoch's floor (see docs/protocol.md), so tests compare
        /// them with each other, not with 1.
        static func seqs(of sub: String, from viewer: StreamTestClient, count: Int) async -> [UInt64] {
            var seqs: [UInt64] = []
            while seqs.count < count, let frame = await viewer.next(within: .seconds(5)) {
                if case .loc(sub, let location) = frame { seqs.append(location.seq) }
            }
            return seqs
        }

        /// Publishes `location` from `publisher` every 100 ms until it is acknowledged (at
        /// most 50 times, while a node reconnects); whether it was.
        static func publishOnceAccepted(_ location: Location, from publisher: StreamTestClient) async -> Bool {
            for _ in 0..<50 {
                publisher.send(.publish([location], ack: true))
                if await publisher.next() == .published(count: 1) { return true }
                try? await Task.sleep(for: .milliseconds(100))
            }
            return false
        }

        /// The seq of `device`'s last known location on `node`, from `GET /v1/devices/{id}`.
        static func storedSeq(of device: String, on node: ServerHarness) throws -> UInt64? {
            let response = try RawHTTPResponse.fetch(port: node.port, path: "/v1/devices/\(device)")
            guard response.status == 200, let range = response.body.range(of: #""seq":"#) else { return nil }
            return UInt64(response.body[range.upperBound...].prefix { $0.isNumber })
        }

        /// Whether `seqs` run on one by one from their first.
        static func consecutive(_ seqs: [UInt64]) -> Bool {
            zip(seqs, seqs.dropFirst()).allSatisfy { $0 + 1 == $1 }
        }

        /// Two nodes on one Redis, a viewer of one device on node 1 (sub `V`, live only) and
        /// a publisher on node 0: every update the viewer gets has crossed Redis.
        struct CrossNodeWatch {
            let nodes: [ServerHarness]
            let client: WebSocketClient
            let viewer: StreamTestClient
            let publisher: StreamTestClient

            /// Starts the nodes on `redis` with `extra` options; the viewer watches `device`.
            init(on redis: RedisHarness, watching device: String, _ extra: [String] = []) async throws {
                nodes = try await RedisScaleOutTests.nodes(2, on: redis, ServerHarness.floodLimits + extra)
                client = try await WebSocketClient.start()
                viewer = try await StreamTestClient(client, url: nodes[1].url("/v1/stream"))
                viewer.send(subscribe("V", [device], snapshot: false))
                #expect(await viewer.next() == .subscribed(sub: "V", restarted: false, snapshot: 0))
                publisher = try await StreamTestClient(client, url: nodes[0].url("/v1/stream"))
            }
        }

        @Test("three nodes: a subscriber on B gets, in order, what A publishes; a snapshot on C is the newest")
        func threeNodes() async throws {
            let redis = try await RedisHarness()
            let nodes = try await Self.nodes(3, on: redis, ServerHarness.floodLimits)
            try await withWebSocketClient { client in
                let publisher = try await StreamTestClient(client, url: nodes[0].url("/v1/stream"))
                let viewer = try await StreamTestClient(client, url: nodes[1].url("/v1/stream"))
                viewer.send(subscribe("B", ["veh-1"]))
                #expect(await viewer.next() == .subscribed(sub: "B", restarted: false, snapshot: 0))
                for round in 1...200 {
                    publisher.send(.publish([testLocation("veh-1", lat: Double(round) / 10)], ack: false))
                }
                publisher.send(.publish([testLocation("veh-1", lat: 42)], ack: true))
                #expect(await publisher.next() == .published(count: 1))
                let seqs = await Self.seqs(of: "B", from: viewer, count: 201)
                #expect(seqs.count == 201 && Self.consecutive(seqs), "every update, in order")

                let late = try await StreamTestClient(client, url: nodes[2].url("/v1/stream"))
                late.send(subscribe("C", ["veh-1"]))
                #expect(await late.next() == .subscribed(sub: "C", restarted: false, snapshot: 1))
                guard case .loc("C", let snapshot)? = await late.next() else {
                    Issue.record("no snapshot on node C")
                    return
                }
                #expect(snapshot.seq == seqs.last && snapshot.lat == 42)
                #expect(try Self.storedSeq(of: "veh-1", on: nodes[2]) == seqs.last)
            }
        }

        @Test("1,000 subscribers of one device on a node hold one Redis subscription, and none once they leave")
        func oneChannelPerDevice() async throws {
            let redis = try await RedisHarness()
            let nodes = try await Self.nodes(2, on: redis, ["--max-connections-per-ip", "2000"])
            try await withWebSocketClient { client in
                var viewers: [StreamTestClient] = []
                for _ in 0..<1000 {
                    viewers.append(try await StreamTestClient(client, url: nodes[1].url("/v1/stream")))
                }
                for viewer in viewers { viewer.send(subscribe("S", ["veh-7"], snapshot: false)) }
                var acked = 0
                for viewer in viewers where await viewer.next() == .subscribed(sub: "S", restarted: false, snapshot: 0)
                {
                    acked += 1
                }
                #expect(acked == 1000)
                #expect(try redis.cli("PUBSUB", "NUMSUB", "locstream:dev:veh-7") == "locstream:dev:veh-7\n1")

                let publisher = try await StreamTestClient(client, url: nodes[0].url("/v1/stream"))
                publisher.send(.publish([testLocation("veh-7")], ack: true))
                #expect(await publisher.next() == .published(count: 1))
                var delivered = 0
                for viewer in viewers {
                    if case .loc("S", _)? = await viewer.next() { delivered += 1 }
                }
                #expect(delivered == 1000)

                for viewer in viewers { viewer.connection.close(code: 1000) }
                #expect(
                    await eventually {
                        try redis.cli("PUBSUB", "NUMSUB", "locstream:dev:veh-7") == "locstream:dev:veh-7\n0"
                    })
                let metrics = try nodes[1].metrics()
                #expect(metrics["locstream_broker_subscribes_total"] == 1)
                #expect(metrics["locstream_broker_unsubscribes_total"] == 1)
                #expect(metrics["locstream_broker_channels"] == 0)
            }
        }

        @Test("viewers on one node switch quickly while another node floods: never a stale frame")
        func churnAcrossNodes() async throws {
            let redis = try await RedisHarness()
            let nodes = try await Self.nodes(2, on: redis, ServerHarness.floodLimits)
            try await SubscriptionChurnTests.churn(
                publishingTo: nodes[0].url("/v1/stream"), viewingOn: nodes[1].url("/v1/stream"), switches: 30)
        }

        @Test("a viewport panned 50 times on one node while the city moves through another: exact snapshots")
        func panAcrossNodes() async throws {
            let redis = try await RedisHarness()
            let nodes = try await Self.nodes(2, on: redis, AreaPanTests.cityLimits)
            try await AreaPanTests.panWhileMoving(publishingTo: nodes[0], viewingOn: nodes[1])
        }

        @Test("a node killed with SIGKILL: its viewer resumes on the other node with since, with no gap")
        func nodeKilled() async throws {
            let redis = try await RedisHarness()
            let nodes = try await Self.nodes(2, on: redis, ServerHarness.floodLimits)
            try await withWebSocketClient { client in
                let publisher = try await StreamTestClient(client, url: nodes[1].url("/v1/stream"))
                let flood = Task {
                    for round in 1...400 {
                        publisher.send(.publish([testLocation("veh-5", lat: Double(round % 80))], ack: round == 400))
                        try? await Task.sleep(for: .milliseconds(2))
                    }
                    return await publisher.next()
                }
                let viewer = try await StreamTestClient(client, url: nodes[0].url("/v1/stream"))
                viewer.send(subscribe("A", ["veh-5"]))
                var lastSeen: UInt64 = 0
                let readUntil = ContinuousClock.now + .milliseconds(300)
                while ContinuousClock.now < readUntil, let frame = await viewer.next(within: .seconds(2)) {
                    if case .loc("A", let location) = frame { lastSeen = location.seq }
                }
                #expect(lastSeen > 0, "the viewer saw updates before the kill")
                _ = await nodes[0].stop(signal: SIGKILL)
                try await Task.sleep(for: .milliseconds(100))

                let resumed = try await StreamTestClient(client, url: nodes[1].url("/v1/stream"))
                resumed.send(subscribe("B", ["veh-5"], since: ["veh-5": lastSeen]))
                guard case .subscribed("B", _, let replayed)? = await resumed.next() else {
                    Issue.record("no subscribed on the surviving node")
                    return
                }
                #expect(await flood.value == .published(count: 1), "the last publish is acknowledged")
                let last = try #require(try Self.storedSeq(of: "veh-5", on: nodes[1]))
                let seqs = await Self.seqs(of: "B", from: resumed, count: Int(last - lastSeen))
                #expect(replayed > 0, "updates published while the viewer was away are replayed")
                #expect(seqs == Array((lastSeen + 1)...last), "no gap and no duplicate across the move")
            }
        }

        @Test("Redis killed during a flood and restarted: nodes recover by themselves, since replays what history kept")
        func redisKilledAndRestarted() async throws {
            let redis = try await RedisHarness(persistent: true)
            let nodes = try await Self.nodes(
                2, on: redis, ServerHarness.floodLimits + ["--redis-timeout-ms", "500", "--history-size", "100000"])
            try await withWebSocketClient { client in
                let viewer = try await StreamTestClient(client, url: nodes[1].url("/v1/stream"))
                viewer.send(subscribe("V", ["veh-3"], snapshot: false))
                #expect(await viewer.next() == .subscribed(sub: "V", restarted: false, snapshot: 0))
                let publisher = try await StreamTestClient(client, url: nodes[0].url("/v1/stream"))
                let flood = Task {
                    var (accepted, refused) = (0, 0)
                    let deadline = ContinuousClock.now + .seconds(60)
                    while !Task.isCancelled, ContinuousClock.now < deadline {
                        publisher.send(.publish([testLocation("veh-3")], ack: true))
                        switch await publisher.next() {
                        case .published?: accepted += 1
                        case .error(let error)? where error.code == .internal: refused += 1
                        default: break
                        }
                        try? await Task.sleep(for: .milliseconds(2))
                    }
                    return (accepted, refused)
                }
                var beforeOutage: UInt64 = 0
                let readUntil = ContinuousClock.now + .milliseconds(500)
                while ContinuousClock.now < readUntil, let frame = await viewer.next(within: .seconds(2)) {
                    if case .loc("V", let location) = frame { beforeOutage = location.seq }
                }
                redis.kill()
                let outageStart = ContinuousClock.now
                #expect(await eventually(within: .seconds(5)) { nodes[1].readyStatus == 503 }, "/readyz turns 503")
                #expect(try nodes[1].metrics()["locstream_broker_up"] == 0)
                try await redis.restart()
                #expect(await eventually { nodes.allSatisfy { $0.readyStatus == 200 } }, "both nodes recover")
                let recovery = ContinuousClock.now - outageStart
                var afterOutage: UInt64 = 0
                while afterOutage == 0, let frame = await viewer.next(within: .seconds(5)) {
                    if case .loc("V", let location) = frame, location.seq > beforeOutage { afterOutage = location.seq }
                }
                flood.cancel()
                let (accepted, refused) = await flood.value
                #expect(
                    afterOutage > beforeOutage, "live delivery resumes after the restart (recovered in \(recovery))")
                #expect(accepted > 0 && refused > 0, "publishes during the outage fail with internal")

                let resumed = try await StreamTestClient(client, url: nodes[1].url("/v1/stream"))
                resumed.send(subscribe("R", ["veh-3"], since: ["veh-3": beforeOutage]))
                let answer = await resumed.next()
                guard case .subscribed("R", _, let replayed)? = answer else {
                    Issue.record("no subscribed after the restart: \(String(describing: answer))")
                    return
                }
                var seqs: [UInt64] = []
                for _ in 0..<replayed {
                    if case .loc("R", let location)? = await resumed.next() { seqs.append(location.seq) }
                }
                // The restarted Redis is a new process, so a new epoch began: seqs jump once,
                // above the floor. The replay is exactly what history holds after the viewer's seq.
                let history = try redis.cli("XRANGE", "locstream:hist:veh-3", "0-\(beforeOutage + 1)", "+")
                let kept = history.split(separator: "\n").filter { $0.hasPrefix("0-") }.compactMap {
                    UInt64($0.dropFirst(2))
                }
                #expect(!seqs.isEmpty && seqs == kept, "history replays with no gap")
                #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 }, "in order")
                let metrics = try nodes[0].metrics()
                #expect((metrics["locstream_broker_errors_total"] ?? 0) > 0)
                #expect((metrics["locstream_broker_connects_total"] ?? 0) >= 4)
                #expect(await nodes[1].logLine(containing: "redis link down") != nil)
            }
        }

        @Test("Redis back empty: seqs continue above the highest seen, and the reset is logged and counted")
        func redisBackEmpty() async throws {
            let redis = try await RedisHarness()
            let watch = try await CrossNodeWatch(on: redis, watching: "veh-1")
            let (nodes, client, viewer, publisher) = (watch.nodes, watch.client, watch.viewer, watch.publisher)
            publisher.send(.publish((1...50).map { testLocation("veh-1", lat: Double($0)) }, ack: true))
            #expect(await publisher.next() == .published(count: 50))
            let before = try #require(await Self.seqs(of: "V", from: viewer, count: 50).last)

            try await redis.restart()
            #expect(await eventually { nodes.allSatisfy { $0.readyStatus == 200 } }, "both nodes reconnect")
            #expect(await Self.publishOnceAccepted(testLocation("veh-1", lat: 51), from: publisher))
            guard case .loc("V", let next)? = await viewer.next() else {
                Issue.record("no update after Redis came back")
                return
            }
            #expect(next.seq > before, "the seq went on from \(next.seq), not back below \(before)")
            #expect(await nodes[0].logLine(containing: "redis lost its data") != nil)
            #expect((try nodes[0].metrics()["locstream_broker_state_resets_total"] ?? 0) >= 1)
            await client.shutdown()
        }

        @Test(
            "updates published while a node's subscriber link is down are logged and counted, and since gets them back")
        func missedWhileLinkDown() async throws {
            let redis = try await RedisHarness()
            let watch = try await CrossNodeWatch(on: redis, watching: "veh-1")
            let (nodes, client, viewer, publisher) = (watch.nodes, watch.client, watch.viewer, watch.publisher)
            publisher.send(.publish([testLocation("veh-1")], ack: true))
            #expect(await publisher.next() == .published(count: 1))
            let first = try #require(await Self.seqs(of: "V", from: viewer, count: 1).first)

            // Subscriber links are cut and cannot come back while Redis wants a password;
            // node 0's command link, already connected, still publishes.
            _ = try redis.cli("CONFIG", "SET", "requirepass", "tmp-pass")
            _ = try redis.cli("-a", "tmp-pass", "CLIENT", "KILL", "TYPE", "pubsub")
            #expect(await eventually { nodes[1].readyStatus == 503 }, "the cut link makes node 1 unready")
            publisher.send(.publish((2...11).map { testLocation("veh-1", lat: Double($0)) }, ack: true))
            #expect(await publisher.next() == .published(count: 10))
            _ = try redis.cli("-a", "tmp-pass", "CONFIG", "SET", "requirepass", "")
            #expect(await eventually { nodes[1].readyStatus == 200 }, "node 1 reconnects by itself")
            #expect(try nodes[1].metrics()["locstream_broker_missed_updates_total"] == 10)
            #expect(await nodes[1].logLine(containing: "missed updates while the redis link was down") != nil)

            viewer.send(subscribe("R", ["veh-1"], since: ["veh-1": first]))
            #expect(await viewer.next() == .subscribed(sub: "R", restarted: true, snapshot: 10))
            #expect(await Self.seqs(of: "R", from: viewer, count: 10) == Array((first + 1)...(first + 10)))
            await client.shutdown()
        }

        @Test("a password and a database in --redis-url: the node authenticates and keeps its keys there")
        func passwordAndDatabase() async throws {
            let redis = try await RedisHarness(password: "s3cret-pw")
            let node = try await ServerHarness(["--broker", "redis", "--redis-url", redis.url(database: 3)])
            #expect(await eventually { node.readyStatus == 200 }, "ready with AUTH and SELECT 3")
            let client = try await WebSocketClient.start()
            let publisher = try await StreamTestClient(client, url: node.url("/v1/stream"))
            publisher.send(.publish([testLocation("veh-1")], ack: true))
            #expect(await publisher.next() == .published(count: 1))
            #expect(try redis.cli("-n", "3", "HEXISTS", "locstream:last", "veh-1") == "1")
            #expect(try redis.cli("-n", "0", "EXISTS", "locstream:last") == "0")
            #expect(!node.log.contains("s3cret-pw"), "the password stays out of the log")
            await client.shutdown()

            let refused = try await ServerHarness([
                "--broker", "redis", "--redis-url", "redis://:wrong@127.0.0.1:\(redis.port)/0",
            ])
            #expect(await refused.logLine(containing: "AUTH refused") != nil, "the log says why")
            #expect(refused.readyStatus == 503)
        }

        @Test("Redis full or hung: publishers get internal with a message, and the node keeps serving")
        func fullOrHung() async throws {
            let redis = try await RedisHarness()
            let node = try await Self.nodes(1, on: redis, ["--redis-timeout-ms", "300"])[0]
            try await withWebSocketClient { client in
                let publisher = try await StreamTestClient(client, url: node.url("/v1/stream"))
                publisher.send(.publish([testLocation("veh-1")], ack: true))
                #expect(await publisher.next() == .published(count: 1))

                _ = try redis.cli("CONFIG", "SET", "maxmemory", "1")
                publisher.send(.publish([testLocation("veh-1")], ack: true))
                let full = await publisher.nextError()
                #expect(full?.code == .internal && full?.message.contains("maxmemory") == true)
                _ = try redis.cli("CONFIG", "SET", "maxmemory", "0")
                publisher.send(.publish([testLocation("veh-1")], ack: true))
                #expect(await publisher.next() == .published(count: 1))

                redis.signal(SIGSTOP)
                let started = ContinuousClock.now
                publisher.send(.publish([testLocation("veh-1")], ack: true))
                let hung = await publisher.nextError()
                #expect(
                    hung?.code == .internal && ContinuousClock.now - started < .seconds(3), "fails within the timeout")
                let bystander = try await StreamTestClient(client, url: node.url("/v1/stream"))
                bystander.send(.ping(t: nil))
                #expect(await bystander.next() == .pong(t: nil), "the node still answers")
                #expect(await eventually(within: .seconds(5)) { node.readyStatus == 503 })
                redis.signal(SIGCONT)
                #expect(await eventually { node.readyStatus == 200 }, "recovers once Redis answers again")
                #expect(await node.logLine(containing: "broker operation failed") != nil)
            }
        }
    }
}
