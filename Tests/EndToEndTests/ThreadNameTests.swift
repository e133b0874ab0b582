import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The server's own threads carry their names into the kernel, so `top -H` and `perf`
    /// tell the service loop from the store's writer.
    @Suite("thread names")
    struct ThreadNameTests {
        @Test("the service loop, the store's writer and its checkpointer show by name")
        func named() async throws {
            let temporary = try TemporaryDirectory(prefix: "locstream-threads")
            let server = try await ServerHarness(["--data-dir", temporary.url.appendingPathComponent("data").path])
            let names = Set(server.threads.map(\.name))
            #expect(names.isSuperset(of: ["lws-server", "store-writer", "store-checkpt"]), "\(names.sorted())")
            withExtendedLifetime(temporary) {}
        }
    }
}
