import Foundation
import LocstreamProtocol
import TestSupport
import Testing

extension EndToEnd {
    /// `--publish-rate` holds per identity (token `sub`, or peer address without auth),
    /// for WebSocket publishes and `POST /v1/locations` together (issue 13, item 6).
    @Suite("publish rate")
    struct PublishRateTests {
        /// A `POST /v1/locations` body of `count` locations.
        static func batch(_ prefix: String, count: Int) -> String {
            batch(devices: (0..<count).map { "\(prefix)-\($0)" })
        }

        /// A `POST /v1/locations` body of one location for each of `devices`.
        static func batch(devices: [String]) -> String {
            "[" + devices.map { #"{"device":"\#($0)","lat":1,"lon":2,"ts":3}"# }.joined(separator: ",") + "]"
        }

        static func post(_ port: Int, _ body: String, from source: String, token: String? = nil) throws
            -> RawHTTPResponse
        {
            try RawHTTPResponse.fetch(
                port: port, method: "POST", path: "/v1/locations", body: body,
                headers: token.map { ["Authorization: Bearer \($0)"] } ?? [], source: source)
        }

        /// Publishes `count` locations on `socket` with an ack; the reply frame's text.
        static func publish(_ socket: RawWebSocket, count: Int) throws -> String {
            try publish(socket, devices: (0..<count).map { "ws-\($0)" })
        }

        /// Publishes one location for each of `devices` on `socket` with an ack; the reply frame's text.
        static func publish(_ socket: RawWebSocket, devices: [String]) throws -> String {
            let locations = devices.map { testLocation($0) }
            try socket.send(
                text: String(decoding: ClientMessage.publish(locations, ack: true).encoded(), as: UTF8.self))
            return String(decoding: try socket.readFrame().payload, as: UTF8.self)
        }

        @Test("an HTTP flood of 10,000 locations at --publish-rate 25 gets about the burst through, then 429")
        func httpFlood() async throws {
            try await ServerHarness.withBystander(["--publish-rate", "25", "--publish-burst", "50"]) { server, _ in
                let body = Self.batch("flood", count: 10)
                let start = ContinuousClock.now
                var accepted = 0
                var refused: [RawHTTPResponse] = []
                for _ in 0..<1000 {
                    let response = try Self.post(server.port, body, from: "127.0.0.2")
                    if response.status == 202 { accepted += 10 } else { refused.append(response) }
                }
                let seconds = Double((ContinuousClock.now - start).components.seconds) + 1
                #expect(accepted >= 50 && Double(accepted) <= 50 + 25 * seconds + 10, "accepted \(accepted)")
                #expect(refused.allSatisfy { $0.status == 429 && $0.body.contains(#""code":"rate_limited""#) })
                #expect(refused.allSatisfy { $0.header("retry-after") == "1" })
                let metrics = try server.metrics()
                #expect(metrics[#"locstream_publish_refused_total{reason="rate_limited"}"#] == refused.count)
                #expect(await server.logLine(containing: "publish refused") != nil)
                #expect(
                    try Self.post(server.port, body, from: "127.0.0.3").status == 202, "another address is unaffected")
            }
        }

        @Test("WebSocket and HTTP publishes of one address share one bucket; another address has its own")
        func sharedByAddress() async throws {
            let server = try await ServerHarness(["--publish-rate", "1", "--publish-burst", "20"])
            let socket = try RawWebSocket(port: server.port, path: "/v1/stream", source: "127.0.0.2")
            _ = try socket.readFrame()
            #expect(try Self.publish(socket, count: 20).contains(#""op":"published""#))
            let http = try Self.post(server.port, Self.batch("h", count: 5), from: "127.0.0.2")
            #expect(http.status == 429, "the WebSocket publishes spent the address's budget")
            #expect(try Self.post(server.port, Self.batch("h", count: 20), from: "127.0.0.3").status == 202)
            let other = try RawWebSocket(port: server.port, path: "/v1/stream", source: "127.0.0.3")
            _ = try other.readFrame()
            let reply = try Self.publish(other, count: 1)
            #expect(reply.contains(#""code":"rate_limited""#) && reply.contains(#""failed_op":"publish""#))
            #expect(try Self.publish(socket, count: 1).contains(#""code":"rate_limited""#))
        }

        @Test("with auth, the token's sub is the identity, whatever the address")
        func sharedBySubject() async throws {
            let server = try await ServerHarness(
                TestTokens.serverOptions(["--publish-rate", "1", "--publish-burst", "20"]))
            let alice = try TestTokens.make(subject: "alice")
            let socket = try RawWebSocket(
                port: server.port, path: "/v1/stream?token=\(alice)", source: "127.0.0.2")
            _ = try socket.readFrame()
            #expect(try Self.publish(socket, count: 20).contains(#""op":"published""#))
            #expect(
                try Self.post(server.port, Self.batch("a", count: 1), from: "127.0.0.3", token: alice).status == 429)
            let bob = try TestTokens.make(subject: "bob")
            #expect(try Self.post(server.port, Self.batch("b", count: 20), from: "127.0.0.2", token: bob).status == 202)
        }
    }
}
