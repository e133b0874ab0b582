import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The HTTP routes served on the WebSocket port.
    @Suite("HTTP endpoints")
    struct HTTPEndpointTests {
        @Test("healthz, readyz and metrics answer; unknown paths get 404; wrong methods 405")
        func routes() async throws {
            let server = try await ServerHarness()
            let health = try RawHTTPResponse.fetch(port: server.port, path: "/healthz")
            #expect(health.status == 200)
            #expect(health.headers.lowercased().contains("content-type: application/json"))
            #expect(try RawHTTPResponse.fetch(port: server.port, path: "/readyz").status == 200)
            let metrics = try RawHTTPResponse.fetch(port: server.port, path: "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.body.contains("# TYPE locstream_connections gauge\nlocstream_connections 0\n"))
            #expect(try RawHTTPResponse.fetch(port: server.port, path: "/nope").status == 404)
            #expect(
                try RawHTTPResponse.fetch(port: server.port, method: "POST", path: "/healthz", body: "{}").status == 405
            )
        }

        @Test("a request body over the limit gets 413 and the server stays up")
        func bodyTooLarge() async throws {
            let server = try await ServerHarness()
            let big = String(repeating: "x", count: (1 << 20) + 1)
            #expect(
                try RawHTTPResponse.fetch(port: server.port, method: "POST", path: "/v1/locations", body: big).status
                    == 413
            )
            #expect(try RawHTTPResponse.fetch(port: server.port, path: "/healthz").status == 200)
        }

        @Test("the connections gauge follows WebSockets opening and closing")
        func connectionGauge() async throws {
            let server = try await ServerHarness(["--enable-echo"])
            let sockets = try (0..<3).map { _ in try RawWebSocket(port: server.port, path: "/v1/echo") }
            for socket in sockets {
                try socket.send(text: "ready?")
                _ = try socket.readFrame()
            }
            #expect(try gauge(server) == 3)
            for socket in sockets {
                try socket.send(opcode: 0x8, payload: [0x03, 0xE8])
                _ = socket.readUntilClose()
            }
            var value = try gauge(server)
            for _ in 0..<100 where value != 0 {
                try await Task.sleep(for: .milliseconds(20))
                value = try gauge(server)
            }
            #expect(value == 0)
        }

        private func gauge(_ server: ServerHarness) throws -> Int? {
            let body = try RawHTTPResponse.fetch(port: server.port, path: "/metrics").body
            return body.split(separator: "\n").first { $0.hasPrefix("locstream_connections ") }.flatMap {
                Int($0.split(separator: " ")[1])
            }
        }
    }
}

extension EndToEnd.HTTPEndpointTests {
    @Test("/metrics passes promtool check metrics after some traffic")
    func promtoolAccepts() async throws {
        let server = try await ServerHarness()
        let socket = try RawWebSocket(port: server.port, path: "/v1/stream")
        _ = try socket.readFrame()
        try socket.send(text: "garbage")
        _ = try socket.readFrame()
        let body = try RawHTTPResponse.fetch(port: server.port, path: "/metrics").body
        for name in [
            "connections", "subscriptions", "hub_entries", "frames_sent_total", "frames_dropped_total",
            "publish_total", "subscription_switches_total", "errors_total", "broker_up",
        ] {
            #expect(body.contains("# TYPE locstream_\(name) "), "\(name) is exposed")
        }
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).txt")
        try Data(body.utf8).write(to: input)
        let check = try CommandResult.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "promtool check metrics < '\(input.path)'"])
        #expect(check.status == 0, "promtool: \(check.stdout) \(check.stderr)")
    }
}
