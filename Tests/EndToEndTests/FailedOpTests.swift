import Foundation
import LocstreamProtocol
import TestSupport
import Testing

extension EndToEnd {
    /// Every error that answers an op names it in `failed_op`.
    @Suite("failed_op on errors")
    struct FailedOpTests {
        @Test("'authenticate first' names the op it refuses")
        func authenticateFirst() async throws {
            try await ServerHarness.withClient(TestTokens.serverOptions()) { server, client in
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                let ops: [(ClientMessage, String)] = [
                    (subscribe("A", ["veh-1"]), "subscribe"), (.unsubscribe, "unsubscribe"),
                    (.publish([testLocation("veh-1")], ack: true), "publish"),
                ]
                for (message, op) in ops {
                    viewer.send(message)
                    let error = await viewer.nextError()
                    #expect(error?.code == .unauthorized && error?.message.hasPrefix("authenticate first") == true)
                    #expect(error?.failedOp == op)
                }
            }
        }

        @Test("the auth op on a server with --auth none is bad_request with failed_op auth, and the connection stays")
        func authWithoutAuthentication() async throws {
            try await ServerHarness.withClient(["--auth", "none"]) { server, client in
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                viewer.send(.auth(token: try TestTokens.make()))
                let error = await viewer.nextError()
                #expect(error?.code == .badRequest && error?.failedOp == "auth")
                #expect(error?.message.contains("--auth none") == true)
                viewer.send(.ping(t: .integer(3)))
                #expect(await viewer.next() == .pong(t: .integer(3)))
            }
        }
    }
}
