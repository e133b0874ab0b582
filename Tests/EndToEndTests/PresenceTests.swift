import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// Presence on a real server with a short `--offline-after`: `online:false` once when a
    /// watched device falls silent, `online:true` before its next `loc`, `online` in snapshots
    /// and `GET /v1/devices/{id}`, the `devices_online` gauge; on Redis, the same transitions
    /// on two nodes, and a node started after the silence replays none.
    @Suite("presence")
    struct PresenceEndToEndTests {
        @Test("embedded: offline once, online before the next location, online in the HTTP lookup")
        func embedded() async throws {
            let server = try await ServerHarness(["--offline-after", "2"])
            try await withWebSocketClient { client in
                let viewer = try await PresenceViewer(client, server: server, device: "p-1")
                try publish("p-1", to: server)
                #expect(await viewer.next(containing: #""op":"loc""#)?.contains(#""device":"p-1""#) == true)
                #expect(try lookup("p-1", on: server).hasPrefix(#"{"online":true,"#))
                #expect(try server.metrics()["locstream_devices_online"] == 1)
                let offline = await viewer.next(containing: #""op":"presence""#, within: .seconds(5))
                #expect(
                    offline?.hasPrefix(#"{"op":"presence","sub":"s","device":"p-1","online":false,"last_seen":"#)
                        == true)
                #expect(try lookup("p-1", on: server).hasPrefix(#"{"online":false,"#))
                #expect(try server.metrics()["locstream_devices_online"] == 0)
                try publish("p-1", to: server)
                #expect(await viewer.nextText() == #"{"op":"presence","sub":"s","device":"p-1","online":true}"#)
                #expect(await viewer.nextText()?.hasPrefix(#"{"op":"loc","sub":"s","device":"p-1""#) == true)
            }
        }

        @Test("Redis: both nodes report each transition once; a node started later replays none")
        func redisNodes() async throws {
            let redis = try await RedisHarness()
            let nodes = try await RedisScaleOutTests.nodes(2, on: redis, ["--offline-after", "1"])
            try await withWebSocketClient { client in
                var viewers: [PresenceViewer] = []
                for node in nodes { viewers.append(try await PresenceViewer(client, server: node, device: "p-2")) }
                try publish("p-2", to: nodes[0])
                for viewer in viewers {
                    #expect(await viewer.next(containing: #""op":"loc""#)?.contains(#""device":"p-2""#) == true)
                    let offline = await viewer.next(containing: #""op":"presence""#, within: .seconds(5))
                    #expect(offline?.contains(#""device":"p-2","online":false"#) == true)
                }
                let late = try await ServerHarness(
                    redis.serverArguments + ["--node", "node-late", "--offline-after", "1"])
                let lateViewer = try await PresenceViewer(client, server: late, device: "p-2")
                #expect(lateViewer.snapshot.first?.hasSuffix(#","online":false}"#) == true, "\(lateViewer.snapshot)")
                for viewer in viewers + [lateViewer] {
                    #expect(await viewer.nextText(within: .seconds(2)) == nil, "no second offline, no replay")
                }
                try publish("p-2", to: nodes[1])
                for viewer in viewers + [lateViewer] {
                    #expect(await viewer.nextText() == #"{"op":"presence","sub":"s","device":"p-2","online":true}"#)
                    #expect(await viewer.nextText()?.hasPrefix(#"{"op":"loc","sub":"s","device":"p-2""#) == true)
                }
            }
        }

        private func publish(_ device: String, to server: ServerHarness) throws {
            let ts = Int64(Date().timeIntervalSince1970 * 1000)
            let response = try RawHTTPResponse.fetch(
                port: server.port, method: "POST", path: "/v1/locations",
                body: #"[{"device":"\#(device)","lat":52.5,"lon":13.4,"ts":\#(ts)}]"#)
            #expect(response.status == 202)
        }

        private func lookup(_ device: String, on server: ServerHarness) throws -> String {
            try RawHTTPResponse.fetch(port: server.port, path: "/v1/devices/\(device)").body
        }
    }
}

/// A viewer subscribed (as `s`) to one device, reading frames as text.
private final class PresenceViewer {
    private let stream: StreamTestClient
    /// The opening frames after `subscribed`.
    private(set) var snapshot: [String] = []

    init(_ client: WebSocketClient, server: ServerHarness, device: String) async throws {
        stream = try await StreamTestClient(client, url: server.url("/v1/stream"))
        stream.send(raw: #"{"op":"subscribe","sub":"s","devices":["\#(device)"]}"#)
        guard let ack = await nextText(), ack.contains(#""op":"subscribed""#),
            let count = ack.firstMatch(of: /"snapshot":(\d+)/).flatMap({ Int($0.output.1) })
        else { throw PresenceViewerError.notSubscribed }
        for _ in 0..<count { snapshot.append(await nextText() ?? "") }
    }

    /// The next frame as text; nil when none comes within `timeout`.
    func nextText(within timeout: Duration = .seconds(5)) async -> String? {
        await stream.nextRaw(within: timeout).map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    /// The next frame that contains `needle`, skipping others, within `timeout`.
    func next(containing needle: String, within timeout: Duration = .seconds(5)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let text = await nextText(within: deadline - ContinuousClock.now) else { return nil }
            if text.contains(needle) { return text }
        }
        return nil
    }

    enum PresenceViewerError: Error { case notSubscribed }
}
