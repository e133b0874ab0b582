import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// PROTOCOL.md's device subscriptions, end to end against the real server.
    @Suite("location streams on /v1/stream")
    struct LocationStreamTests {
        /// A viewer subscribed (sub `A`) to `veh-1`, not yet published, on `server`, and a
        /// publisher beside it.
        private static func watchingVeh1(
            on server: ServerHarness, _ client: WebSocketClient, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> (viewer: StreamTestClient, publisher: StreamTestClient) {
            let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
            let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
            viewer.send(subscribe("A", ["veh-1"]))
            #expect(
                await viewer.next() == .subscribed(sub: "A", restarted: false, snapshot: 0),
                sourceLocation: sourceLocation)
            return (viewer, publisher)
        }

        @Test("the welcome frame, then snapshot then live, each frame tagged with the sub")
        func snapshotThenLive() async throws {
            try await ServerHarness.withClient(["--node", "node-a"]) { server, client in
                let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
                publisher.send(.publish([testLocation("veh-1", lat: 1), testLocation("veh-1", lat: 2)], ack: true))
                #expect(await publisher.next() == .published(count: 2))

                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                viewer.send(subscribe("A", ["veh-1", "veh-unknown"]))
                #expect(await viewer.next() == .subscribed(sub: "A", restarted: false, snapshot: 1))
                guard case .loc("A", let snapshot)? = await viewer.next() else {
                    Issue.record("no snapshot frame")
                    return
                }
                #expect(snapshot.seq == 2 && snapshot.lat == 2)
                publisher.send(.publish([testLocation("veh-unknown", lat: 3)], ack: false))
                guard case .loc("A", let live)? = await viewer.next() else {
                    Issue.record("no live frame")
                    return
                }
                #expect(live.device == "veh-unknown" && live.seq == 1)
            }
        }

        @Test("subscribing during a flood: snapshot then live with no gap and no duplicate, in seq order")
        func noGapNoDuplicate() async throws {
            try await ServerHarness.withClient(ServerHarness.floodLimits) { server, client in
                let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                let flood = Task {
                    for round in 0..<400 {
                        publisher.send(.publish([testLocation("veh-9", lat: Double(round % 80))], ack: false))
                        if round % 20 == 0 { try? await Task.sleep(for: .milliseconds(2)) }
                    }
                    publisher.send(.publish([testLocation("veh-9")], ack: true))
                }
                try await Task.sleep(for: .milliseconds(20))
                viewer.send(subscribe("S", ["veh-9"]))
                await flood.value
                var seqs: [UInt64] = []
                while let frame = await viewer.next(within: .seconds(1)) {
                    if case .loc(_, let location) = frame { seqs.append(location.seq) }
                }
                #expect(seqs.count > 10)
                #expect(seqs.last == 401)
                #expect(seqs == Array((seqs.first ?? 0)...(seqs.last ?? 0)), "consecutive seqs, no gap, no duplicate")
            }
        }

        @Test(
            "the same sub and target is a no-op; the same sub with another target is sub_id_reused and changes nothing")
        func sameIdRules() async throws {
            try await ServerHarness.withClient { server, client in
                let (viewer, publisher) = try await Self.watchingVeh1(on: server, client)
                viewer.send(subscribe("A", ["veh-1"]))
                #expect(await viewer.next() == .subscribed(sub: "A", restarted: false, snapshot: 0))
                viewer.send(subscribe("A", ["veh-2"]))
                let error = await viewer.nextError()
                #expect(error?.code == .subIdReused && error?.failedOp == "subscribe")
                publisher.send(.publish([testLocation("veh-2"), testLocation("veh-1")], ack: false))
                guard case .loc("A", let location)? = await viewer.next() else {
                    Issue.record("the running subscription must continue")
                    return
                }
                #expect(location.device == "veh-1")
                #expect(await viewer.next(within: .milliseconds(300)) == nil)
            }
        }

        @Test("bad input gets an error frame and leaves the connection usable")
        func badInputKeepsConnection() async throws {
            try await ServerHarness.withClient { server, client in
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                let cases: [(String, ErrorCode)] = [
                    ("not json", .badJSON), ("[1,2]", .badRequest), (#"{"op":"fly"}"#, .unknownOp),
                    (#"{"op":"subscribe","sub":"x"}"#, .badRequest), (#"{"op":"unsubscribe"}"#, .notSubscribed),
                    (#"{"op":"publish","loc":{"device":"a b","lat":1,"lon":1,"ts":1}}"#, .badRequest),
                    (#"{"op":"subscribe","sub":"x","area":{"bbox":[1,1,1,2]}}"#, .badRequest),
                ]
                for (text, code) in cases {
                    viewer.send(raw: text)
                    let error = await viewer.nextError()
                    #expect(error?.code == code, "\(text)")
                }
                viewer.connection.send(OutboundFrame(opcode: .binary, body: [1, 2, 3]))
                if case .error(let error)? = await viewer.next() { #expect(error.code == .badRequest) }
                viewer.send(.ping(t: .integer(7)))
                #expect(await viewer.next() == .pong(t: .integer(7)))
            }
        }

        @Test("publish with locs is all or nothing, and the error names the index")
        func publishAllOrNothing() async throws {
            try await ServerHarness.withClient { server, client in
                let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
                publisher.send(
                    raw:
                        #"{"op":"publish","ack":true,"locs":[{"device":"ok","lat":1,"lon":1,"ts":1},{"device":"ok","lat":91,"lon":1,"ts":1}]}"#
                )
                let error = await publisher.nextError()
                #expect(error?.code == .badRequest && error?.message.contains("[1]") == true)
                let missing = try RawHTTPResponse.fetch(port: server.port, path: "/v1/devices/ok")
                #expect(missing.status == 404)
            }
        }

        @Test("unsubscribe stops the frames")
        func unsubscribeStops() async throws {
            try await ServerHarness.withClient { server, client in
                let (viewer, publisher) = try await Self.watchingVeh1(on: server, client)
                publisher.send(.publish([testLocation("veh-1")], ack: false))
                guard case .loc = await viewer.next() else {
                    Issue.record("expected a frame")
                    return
                }
                viewer.send(.unsubscribe)
                #expect(await viewer.next() == .unsubscribed(sub: "A"))
                publisher.send(.publish([testLocation("veh-1")], ack: true))
                #expect(await publisher.next() == .published(count: 1))
                #expect(await viewer.next(within: .milliseconds(300)) == nil)
            }
        }

        @Test("resume with since replays history, then continues live")
        func resumeWithSince() async throws {
            try await ServerHarness.withClient(["--history-size", "5"]) { server, client in
                let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
                publisher.send(.publish((0..<8).map { testLocation("veh-1", lat: Double($0)) }, ack: true))
                #expect(await publisher.next() == .published(count: 8))
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                viewer.send(subscribe("R", ["veh-1"], since: ["veh-1": 6]))
                #expect(await viewer.next() == .subscribed(sub: "R", restarted: false, snapshot: 2))
                var seqs: [UInt64] = []
                for _ in 0..<2 { if case .loc(_, let location)? = await viewer.next() { seqs.append(location.seq) } }
                #expect(seqs == [7, 8])
                viewer.send(subscribe("R2", ["veh-1"], since: ["veh-1": 1]))
                #expect(await viewer.next() == .subscribed(sub: "R2", restarted: true, snapshot: 5))
                seqs = []
                for _ in 0..<5 { if case .loc(_, let location)? = await viewer.next() { seqs.append(location.seq) } }
                #expect(seqs == [4, 5, 6, 7, 8], "history keeps 5; the gap from 1 to 4 shows what was lost")
                viewer.send(subscribe("R3", ["veh-1"], since: ["veh-1": 8]))
                #expect(await viewer.next() == .subscribed(sub: "R3", restarted: true, snapshot: 0))
                publisher.send(.publish([testLocation("veh-1")], ack: false))
                if case .loc("R3", let location)? = await viewer.next() {
                    #expect(location.seq == 9)
                } else {
                    Issue.record("no live frame")
                }
            }
        }

        @Test("HTTP: POST /v1/locations publishes, GET /v1/devices/{id} reads the last position")
        func httpPublishAndRead() async throws {
            let server = try await ServerHarness()
            let accepted = try RawHTTPResponse.fetch(
                port: server.port, method: "POST", path: "/v1/locations",
                body:
                    #"[{"device":"truck-1","lat":48.1,"lon":11.5,"ts":5},{"device":"truck-1","lat":48.2,"lon":11.6,"ts":6}]"#
            )
            #expect(accepted.status == 202 && accepted.body == #"{"accepted":2}"#)
            let device = try RawHTTPResponse.fetch(port: server.port, path: "/v1/devices/truck-1")
            #expect(device.status == 200)
            let json = try JSONSerialization.jsonObject(with: Data(device.body.utf8)) as? [String: Any]
            #expect(json?["seq"] as? Int == 2 && json?["lat"] as? Double == 48.2)
            let bad = try RawHTTPResponse.fetch(
                port: server.port, method: "POST", path: "/v1/locations",
                body: #"[{"device":"t","lat":1,"lon":1,"ts":1},{"device":"t"}]"#)
            #expect(bad.status == 400 && bad.body.contains("bad_request") && bad.body.contains("[1]"))
            #expect(try RawHTTPResponse.fetch(port: server.port, path: "/v1/devices/nobody").status == 404)
            #expect(try RawHTTPResponse.fetch(port: server.port, path: "/v1/devices/bad%20id").status == 400)
        }
    }
}
