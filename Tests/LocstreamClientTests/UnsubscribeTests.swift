import LocstreamClient
import TestSupport
import Testing

extension ClientEndToEnd {
    /// Ending an iteration ends the subscription on the server.
    @Suite("ending a sequence unsubscribes")
    struct UnsubscribeTests {
        @Test("break, or the task cancelled: the server's subscriptions go back to 0, the connection stays")
        func endsSubscription() async throws {
            let server = try await ServerHarness()
            try await ClientEndToEnd.withClient(of: server) { client in
                _ = try await client.publish([testLocation("a")])
                _ = try await client.locations(of: ["a"]).collect(until: \.endsOpening)
                #expect(await server.metric("locstream_subscriptions", reaches: 0), "after a break")

                let watching = Task {
                    for try await _ in client.locations(of: ["a"]) {}
                }
                #expect(await server.metric("locstream_subscriptions", reaches: 1))
                watching.cancel()
                #expect(await server.metric("locstream_subscriptions", reaches: 0), "after cancelling")
                try await watching.value  // a cancelled sequence ends without an error
                #expect(try server.metrics()["locstream_connections"] == 2, "the idle connection is kept for reuse")
            }
        }
    }
}
