import Foundation
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// `welcome.conn` is unique across nodes and restarts, and names the connection in the log.
    @Suite("connection ids")
    struct ConnectionIDTests {
        /// The `conn` of one new connection to `server`.
        private func conn(_ server: ServerHarness, _ client: WebSocketClient) async throws -> String {
            try await StreamTestClient(client, url: server.url("/v1/stream")).connectionID
        }

        @Test("two nodes of one name, and one node after a restart, hand out different ids; the log names them")
        func uniqueAcrossNodesAndRestarts() async throws {
            try await withWebSocketClient { client in
                var seen: [String] = []
                for _ in 0..<3 {
                    let server = try await ServerHarness(["--node", "node-a"])
                    for _ in 0..<2 {
                        let id = try await conn(server, client)
                        #expect(id.hasPrefix("node-a-"), "\(id)")
                        #expect(
                            await server.logLine(containing: id) != nil, "the log names connection \(id)")
                        seen.append(id)
                    }
                }
                #expect(Set(seen).count == seen.count, "\(seen)")
            }
        }
    }
}
