import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// An opening larger than the connection's queue limit (a map of a busy area) is
    /// paced by the viewer's reading: every frame that `subscribed.snapshot` counted
    /// arrives, none is conflated, no viewer is closed as slow, and a switch in the middle
    /// stops it at once.
    @Suite("large snapshots")
    struct LargeSnapshotTests {
        /// About 110 bytes a frame: some 66 KB of snapshot against a 16 KiB limit.
        private let devices = (0..<600).map { "snap-\($0)" }
        private let box = Area.bbox(minLon: 13, minLat: 52, maxLon: 14, maxLat: 53)
        private let limits = ServerHarness.floodLimits + ["--max-queued-bytes", "16384"]

        /// Publishes `devices`, or that many `snap-N` devices.
        private func fill(_ publisher: StreamTestClient, count: Int? = nil) async {
            let devices = count.map { (0..<$0).map { "snap-\($0)" } } ?? devices
            for start in stride(from: 0, to: devices.count, by: 100) {
                let chunk = devices[start..<start + 100].enumerated().map { offset, device in
                    testLocation(device, lat: 52.5 + Double(start + offset) / 1_000_000)
                }
                publisher.send(.publish(chunk, ack: true))
                #expect(await publisher.next() == .published(count: chunk.count))
            }
        }

        private func area(_ sub: String) -> ClientMessage {
            .subscribe(SubscribeRequest(sub: sub, target: .area(box)))
        }

        @Test(
            "a snapshot four times the queue limit arrives whole, read slowly", arguments: ["conflate", "disconnect"])
        func wholeSnapshot(policy: String) async throws {
            try await ServerHarness.withClient(limits + ["--slow-consumer", policy]) { server, client in
                let url = server.url("/v1/stream")
                let publisher = try await StreamTestClient(client, url: url)
                await fill(publisher)
                let bystander = try await StreamTestClient(client, url: url)
                bystander.send(subscribe("one", ["snap-0"], snapshot: false))
                #expect(await bystander.next() == .subscribed(sub: "one", restarted: false, snapshot: 0))
                let viewer = try await StreamTestClient(client, url: url)
                viewer.send(area("map"))
                #expect(await viewer.next() == .subscribed(sub: "map", restarted: false, snapshot: devices.count))
                // A live update while the snapshot is still going out: it follows its
                // device's snapshot frame, never precedes it.
                publisher.send(.publish([testLocation("snap-0", lat: 52.6)], ack: true))
                #expect(await publisher.next() == .published(count: 1))

                var seqs: [String: [UInt64]] = [:]
                var frames = 0
                while frames < devices.count + 1, case .loc(let sub, let location)? = await viewer.next() {
                    #expect(sub == "map")
                    seqs[location.device, default: []].append(location.seq)
                    frames += 1
                    if frames % 50 == 0 { try await Task.sleep(for: .milliseconds(20)) }
                }
                #expect(frames == devices.count + 1, "every snapshot frame and the live one")
                #expect(Set(devices).subtracting(seqs.keys).count == 0, "no device is missing")
                #expect(seqs["snap-0"]?.count == 2 && seqs["snap-0"] == seqs["snap-0"]?.sorted())
                #expect(await viewer.next(within: .milliseconds(300)) == nil, "nothing more")
                if case .loc(_, let location)? = await bystander.next() {
                    #expect(location.device == "snap-0" && location.lat == 52.6)
                } else {
                    Issue.record("the bystander missed the live update")
                }
                let metrics = try RawHTTPResponse.fetch(port: server.port, path: "/metrics").body
                #expect(metrics.contains(#"locstream_frames_dropped_total{reason="conflated"} 0"#))
                #expect(metrics.contains("locstream_slow_consumers_closed_total 0"))
            }
        }

        @Test("a viewer that reads none of its snapshot is closed with 4008 after the stall timeout; others go on")
        func stalledViewer() async throws {
            try await ServerHarness.withClient(limits + ["--snapshot-stall-timeout", "1"]) { server, client in
                let url = server.url("/v1/stream")
                let publisher = try await StreamTestClient(client, url: url)
                // About 6.6 MB of snapshot: more than the socket buffers hold for a peer
                // that reads nothing (the kernel grows them only for one that reads).
                await fill(publisher, count: 60000)
                // A viewer that reads nothing at all: a raw socket (the lws client would go
                // on reading into its own queue for a while).
                let stalled = try RawWebSocket(
                    port: server.port, path: "/v1/stream", extraHeaders: ["Sec-WebSocket-Protocol: locstream.v1"])
                try stalled.send(text: String(decoding: area("map").encoded(), as: UTF8.self))
                let bystander = try await StreamTestClient(client, url: url)
                bystander.send(subscribe("one", ["snap-0"], snapshot: false))
                #expect(await bystander.next() == .subscribed(sub: "one", restarted: false, snapshot: 0))
                let deadline = ContinuousClock.now + .seconds(10)
                var closed = false
                while !closed, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(200))
                    let metrics = try RawHTTPResponse.fetch(port: server.port, path: "/metrics").body
                    closed = metrics.contains("locstream_slow_consumers_closed_total 1\n")
                }
                #expect(closed, "the stalled viewer was closed")
                #expect(await server.logLine(containing: "slow consumer closed") != nil)
                var frames = 0
                var close: RawWebSocket.Frame?
                while close == nil, let frame = try? stalled.readFrame() {
                    if frame.opcode == 0x8 { close = frame }
                    if frame.payload.starts(with: Array(#"{"op":"loc""#.utf8)) { frames += 1 }
                }
                #expect(frames < 60000, "it never got the rest")
                #expect(close?.closeCode == 4008)
                publisher.send(.publish([testLocation("snap-0", lat: 52.7)], ack: true))
                #expect(await publisher.next() == .published(count: 1))
                if case .loc(_, let location)? = await bystander.next() {
                    #expect(location.lat == 52.7)
                } else {
                    Issue.record("the bystander missed the update")
                }
            }
        }

        @Test("a switch while the snapshot waits for the viewer: nothing of it after the new ack")
        func switchMidSnapshot() async throws {
            try await ServerHarness.withClient(limits) { server, client in
                let url = server.url("/v1/stream")
                let publisher = try await StreamTestClient(client, url: url)
                await fill(publisher)
                let viewer = try await StreamTestClient(client, url: url)
                viewer.send(area("big"))
                // The viewer has read nothing when it switches: most of the snapshot is
                // still waiting for room on the server.
                viewer.send(subscribe("small", ["snap-1"]))
                var acked = false
                var stale = 0
                var small = 0
                while small == 0, let message = await viewer.next() {
                    switch message {
                    case .subscribed(let sub, _, _): acked = acked || sub == "small"
                    case .loc(let sub, _) where sub == "big": if acked { stale += 1 }
                    case .loc(let sub, let location) where sub == "small":
                        #expect(acked && location.device == "snap-1")
                        small += 1
                    default: break
                    }
                }
                #expect(acked && small == 1 && stale == 0)
                let metrics = try RawHTTPResponse.fetch(port: server.port, path: "/metrics").body
                #expect(metrics.contains("locstream_subscriptions 1\n"), "the switch replaced the big one")
                #expect(metrics.contains(#"locstream_frames_dropped_total{reason="conflated"} 0"#))
            }
        }
    }
}
