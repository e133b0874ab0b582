import Testing
import WebSocketTransport

/// Starts a WebSocket client, runs `body` with it, and shuts it down (also when `body`
/// throws).
package func withWebSocketClient<Result>(_ body: (WebSocketClient) async throws -> Result) async throws -> Result {
    let client = try await WebSocketClient.start()
    return try await withCleanup {
        try await body(client)
    } cleanup: {
        await client.shutdown()
    }
}

extension ServerHarness {
    /// Starts a server with `arguments` and a WebSocket client, runs `body` with both
    /// (beside a bystander, judged once `body` returns, when `bystander` is given), and
    /// shuts the client down last.
    package static func withClient<Result>(
        _ arguments: [String] = [], bystander: Bystander.Options? = nil,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (ServerHarness, WebSocketClient) async throws -> Result
    ) async throws -> Result {
        let server = try await ServerHarness(arguments)
        return try await withWebSocketClient { client in
            guard let bystander else { return try await body(server, client) }
            return try await server.withBystander(bystander, sourceLocation: sourceLocation) { _ in
                try await body(server, client)
            }
        }
    }
}
