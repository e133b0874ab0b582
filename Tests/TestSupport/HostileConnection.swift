import Testing
import WebSocketTransport

/// The setup that hostile WebSocket cases share: a server, a bystander beside it, and one
/// connection for the hostile frames.
package struct HostileConnection {
    package let server: ServerHarness
    package let bystander: Bystander
    package let client: WebSocketClient
    /// The connection that sends the hostile frames.
    package let attacker: StreamTestClient

    /// Starts a server with `options` and a bystander, and connects the attacker.
    package static func start(_ options: [String] = []) async throws -> Self {
        let server = try await ServerHarness(options)
        let bystander = try await Bystander(server)
        let client = try await WebSocketClient.start()
        let attacker = try await StreamTestClient(client, url: server.url("/v1/stream"))
        return Self(server: server, bystander: bystander, client: client, attacker: attacker)
    }

    /// Checks that the bystander was not harmed, then closes everything.
    package func finish(sourceLocation: SourceLocation = #_sourceLocation) async {
        await bystander.expectUnharmed(sourceLocation: sourceLocation)
        await bystander.stop()
        await client.shutdown()
    }
}
