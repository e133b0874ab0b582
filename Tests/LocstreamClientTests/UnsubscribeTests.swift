import LocstreamClient
import TestSupport
import Testing

extension ClientEndToEndTests {
    /// Ending an iteration ends the subscription on the server.
    @Suite("ending a sequence unsubscribes")
    struct UnsubscribeTests {
        @Test("break, or the task cancelled: the server's subscriptions go back to 0, the connection stays")
        func endsSubscription() async throws {
            let server = try await ServerHarness()
            try await ClientEndToEndTests.withClient(of: server) { client in
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

        @Test("ten sequences at once hold ten subscriptions on ten connections; cancelling them all leaves none")
        func cancelEvery() async throws {
            let server = try await ServerHarness()
            try await ClientEndToEndTests.withClient(of: server) { client in
                let devices = (0..<10).map { "c-\($0)" }
                let watching = devices.map { device in
                    Task { for try await _ in client.locations(of: [device]) {} }
                }
                #expect(await server.metric("locstream_subscriptions", reaches: 10))
                #expect(try server.metrics()["locstream_connections"] == 10)
                for task in watching { task.cancel() }
                #expect(await server.metric("locstream_subscriptions", reaches: 0))
                for task in watching { try await task.value }
            }
        }
    }
}
