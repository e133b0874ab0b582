import Foundation
import LocstreamProtocol
import TestSupport
import Testing

extension EndToEnd {
    /// Per-device state is bounded (issue 13, item 7): `--max-devices` refuses new ids
    /// (HTTP 507, WebSocket `internal`) while known devices keep updating, on the
    /// embedded broker and deployment-wide on Redis; `--retention` forgets silent devices
    /// without ever handing out a seq twice.
    @Suite("device limits")
    struct DeviceLimitTests {
        static func post(_ port: Int, _ devices: [String]) throws -> RawHTTPResponse {
            try RawHTTPResponse.fetch(
                port: port, method: "POST", path: "/v1/locations",
                body: PublishRateTests.batch(devices: devices))
        }

        /// The seq of the last known position of `device` on `server`; nil when unknown.
        static func seq(of device: String, on server: ServerHarness) throws -> UInt64? {
            let response = try RawHTTPResponse.fetch(port: server.port, path: "/v1/devices/\(device)")
            guard response.status == 200,
                case .loc(_, let location)? = try? ServerMessage.decode(
                    Array(#"{"op":"loc","sub":"s",\#(response.body.dropFirst())"#.utf8))
            else { return nil }
            return location.seq
        }

        @Test("past --max-devices a new id gets 507 or internal, known devices keep updating; the bystander too")
        func maxDevices() async throws {
            try await ServerHarness.withBystander(["--max-devices", "5"]) { server, _ in
                #expect(try Self.post(server.port, ["a", "b", "c", "d"]).status == 202)
                let refused = try Self.post(server.port, ["a", "e"])
                #expect(refused.status == 507)
                #expect(refused.body.contains(#""reason":"max_devices""#) && refused.body.contains("at most 5 devices"))
                #expect(try Self.seq(of: "a", on: server) == 1, "nothing of the refused batch was stored")
                #expect(try Self.post(server.port, ["a", "b", "c", "d"]).status == 202)
                let socket = try RawWebSocket(port: server.port, path: "/v1/stream")
                _ = try socket.readFrame()
                let reply = try PublishRateTests.publish(socket, devices: ["f"])
                #expect(reply.contains(#""code":"internal""#) && reply.contains("device limit reached"))
                #expect(try PublishRateTests.publish(socket, devices: ["a"]).contains(#""op":"published""#))
                let metrics = try server.metrics()
                #expect(metrics[#"locstream_publish_refused_total{reason="max_devices"}"#] == 2)
                #expect(metrics["locstream_devices"] == 5)
                #expect(await server.logLine(containing: "publish refused") != nil)
            }
        }

        @Test("a device silent past --retention is forgotten; when it comes back its seq goes on rising")
        func retention() async throws {
            let server = try await ServerHarness(["--retention", "2s"])
            for _ in 0..<3 { #expect(try Self.post(server.port, ["gone"]).status == 202) }
            #expect(try Self.seq(of: "gone", on: server) == 3)
            #expect(
                await eventually { try server.metrics()["locstream_devices_evicted_total"] == 1 })
            #expect(try Self.seq(of: "gone", on: server) == nil)
            #expect(await server.logLine(containing: "silent devices forgotten") != nil)
            #expect(try server.metrics()["locstream_devices"] == 0)
            #expect(try Self.post(server.port, ["gone"]).status == 202)
            #expect(try Self.seq(of: "gone", on: server) == 4)
        }

        @Test("with Redis, --max-devices holds for the whole deployment, whichever node publishes")
        func redisDeploymentWide() async throws {
            let redis = try await RedisHarness()
            let nodes = try await RedisScaleOutTests.nodes(2, on: redis, ["--max-devices", "3"])
            #expect(try Self.post(nodes[0].port, ["a", "b"]).status == 202)
            let first = try #require(try Self.seq(of: "a", on: nodes[1]))
            #expect(try Self.post(nodes[1].port, ["c"]).status == 202)
            let refused = try Self.post(nodes[1].port, ["d"])
            #expect(refused.status == 507 && refused.body.contains(#""reason":"max_devices""#))
            #expect(try Self.post(nodes[0].port, ["a", "b", "c", "d"]).status == 507, "all or nothing")
            #expect(try Self.post(nodes[0].port, ["a", "b", "c"]).status == 202, "known devices keep updating")
            #expect(try Self.seq(of: "a", on: nodes[1]) == first + 1)
            #expect(try Self.seq(of: "d", on: nodes[0]) == nil, "d was never stored")
            #expect(try nodes[1].metrics()[#"locstream_publish_refused_total{reason="max_devices"}"#] == 1)
        }
    }
}
