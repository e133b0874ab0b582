import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// Every limit is hit and answered as PROTOCOL.md and the options say, and the
    /// other clients do not notice.
    @Suite("limits")
    struct LimitsTests {
        @Test("past --max-connections an upgrade gets 503; past --max-connections-per-ip too")
        func connectionLimits() async throws {
            let server = try await ServerHarness(["--max-connections", "3"])
            let held = try (0..<3).map { _ in try RawWebSocket(port: server.port, path: "/v1/stream") }
            #expect(held.allSatisfy { $0.handshake.contains(" 101 ") })
            let refused = try RawWebSocket(port: server.port, path: "/v1/stream")
            #expect(refused.handshake.contains(" 503 "))
            try held[0].send(text: #"{"op":"ping","t":1}"#)
            _ = try held[0].readFrame()
            #expect(try held[0].readFrame().payload == Array(#"{"op":"pong","t":1}"#.utf8), "others unaffected")

            let perAddress = try await ServerHarness(["--max-connections-per-ip", "2"])
            let two = try (0..<2).map { _ in try RawWebSocket(port: perAddress.port, path: "/v1/stream") }
            #expect(two.allSatisfy { $0.handshake.contains(" 101 ") })
            #expect(try RawWebSocket(port: perAddress.port, path: "/v1/stream").handshake.contains(" 503 "))
        }

        @Test("by default one address holds at most 1000 connections; another address still gets in")
        func defaultPerAddressLimit() async throws {
            let server = try await ServerHarness()
            let held = try (0..<1000).map { _ in
                try RawWebSocket(port: server.port, path: "/v1/stream", source: "127.0.0.4")
            }
            #expect(held.allSatisfy { $0.handshake.contains(" 101 ") })
            let refused = try RawWebSocket(port: server.port, path: "/v1/stream", source: "127.0.0.4")
            #expect(refused.handshake.contains(" 503 "))
            #expect(
                try RawWebSocket(port: server.port, path: "/v1/stream", source: "127.0.0.5").handshake.contains(" 101 ")
            )
        }

        @Test("--allowed-origins refuses other origins with 403; requests without Origin pass")
        func origins() async throws {
            let server = try await ServerHarness(["--allowed-origins", "https://maps.example"])
            let good = try RawWebSocket(
                port: server.port, path: "/v1/stream", extraHeaders: ["Origin: https://maps.example"])
            #expect(good.handshake.contains(" 101 "))
            let bad = try RawWebSocket(
                port: server.port, path: "/v1/stream", extraHeaders: ["Origin: https://evil.example"])
            #expect(bad.handshake.contains(" 403 "))
            #expect(try RawWebSocket(port: server.port, path: "/v1/stream").handshake.contains(" 101 "))
        }

        @Test("a client that keeps sending garbage is closed with 1008; others carry on")
        func errorBudget() async throws {
            try await ServerHarness.withClient(["--error-budget", "5"]) { server, client in
                let hostile = try await StreamTestClient(client, url: server.url("/v1/stream"))
                let bystander = try await StreamTestClient(client, url: server.url("/v1/stream"))
                for _ in 0..<10 { hostile.send(raw: "garbage") }
                var errors = 0
                while case .error? = await hostile.next(within: .seconds(3)) { errors += 1 }
                #expect(errors == 6, "five within budget, the sixth spends it")
                #expect(hostile.connection.peerClose?.code == 1008)
                bystander.send(.ping(t: .integer(2)))
                #expect(await bystander.next() == .pong(t: .integer(2)))
                let metrics = try RawHTTPResponse.fetch(port: server.port, path: "/metrics").body
                #expect(metrics.contains("locstream_error_budget_closed_total 1"))
            }
        }

        @Test("more devices than --max-subscribe-devices is too_large and changes nothing")
        func subscribeSize() async throws {
            try await ServerHarness.withClient(["--max-subscribe-devices", "3"]) { server, client in
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                viewer.send(subscribe("A", ["a", "b", "c", "d"]))
                let error = await viewer.nextError()
                #expect(error?.code == .tooLarge)
                viewer.send(subscribe("A", ["a", "b", "c"]))
                #expect(await viewer.next() == .subscribed(sub: "A", restarted: false, snapshot: 0))
            }
        }
    }
}
