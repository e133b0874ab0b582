import Foundation
import LocstreamClient
import TestSupport
import Testing

extension ClientEndToEndTests {
    /// The Foundation transport, where `URLSessionWebSocketTask` works.
    @Suite("URLSessionWebSocketTask transport")
    struct URLSessionTransportTests {
        #if os(Linux)
            static let webSocketsWork = false
        #else
            static let webSocketsWork = true
        #endif

        @Test(
            "publish with ack, then a subscription's snapshot, over URLSession",
            .enabled(
                if: webSocketsWork,
                "skipped on Linux: Debian's libcurl has no WebSocket support, so URLSessionWebSocketTask cannot connect"
            ), .timeLimit(.minutes(1)))
        func publishAndSubscribe() async throws {
            let server = try await ServerHarness()
            let url = try #require(URL(string: server.url("/v1/stream")))
            let client = LocstreamClient(transport: URLSessionTransport(url: url))
            defer { client.closeIdleConnections() }
            let seqs = try await client.publish([testLocation("u-1")])
            let opening = try await client.locations(of: ["u-1"]).collect(until: \.endsOpening)
            #expect(opening == [.location(located("u-1", seq: seqs[0])), .snapshotEnd])
        }

        @Test(
            "on Linux, connecting fails with an error instead of hanging",
            .enabled(if: !webSocketsWork, "URLSessionWebSocketTask works here"), .timeLimit(.minutes(1)))
        func failsOnLinux() async throws {
            let server = try await ServerHarness()
            let url = try #require(URL(string: server.url("/v1/stream")))
            await #expect(throws: (any Error).self) {
                _ = try await URLSessionTransport(url: url).connect(token: nil)
            }
        }
    }
}
