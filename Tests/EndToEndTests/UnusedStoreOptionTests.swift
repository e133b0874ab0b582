import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// Store options the chosen broker and store do not use (`--data-dir`, `--sync`,
    /// `--store-cpus` with `--store memory` or `--broker redis`) are warned about at start
    /// when given by flag or in the configuration file; the server still starts.
    @Suite("unused store options")
    struct UnusedStoreOptionTests {
        private static let warning = "option has no effect"

        @Test("--store-cpus and --sync with --store memory: one warning each, and the server serves")
        func memoryStoreWarns() async throws {
            let server = try await ServerHarness(["--store", "memory", "--store-cpus", "0", "--sync", "full"])
            #expect(await server.logLine(containing: "listening") != nil)
            let warnings = server.log.split(separator: "\n").filter { $0.contains(Self.warning) }
            #expect(warnings.count == 2, "\(warnings)")
            for option in ["--store-cpus", "--sync"] {
                #expect(
                    warnings.contains { $0.contains(option) && $0.contains("--store memory keeps nothing on disk") },
                    "\(warnings)")
            }
            #expect(try RawHTTPResponse.fetch(port: server.port, path: "/healthz").status == 200)
            #expect(await server.stop() == 0)
        }

        @Test("options the store uses, and a data directory from the environment, are not warned about")
        func usedOrInheritedQuiet() async throws {
            let directory = try TemporaryDirectory(prefix: "locstream-unused-options")
            let data = directory.url.appendingPathComponent("data").path
            let sqlite = try await ServerHarness(["--data-dir", data, "--sync", "full"])
            let memory = try await ServerHarness(
                ["--store", "memory"], environment: ["LOCSTREAM_DATA_DIR": data, "LOCSTREAM_SYNC": "full"])
            for server in [sqlite, memory] {
                #expect(await server.logLine(containing: "listening") != nil)
                #expect(!server.log.contains(Self.warning), "\(server.log)")
                #expect(await server.stop() == 0)
            }
        }

        @Test(
            "--print-config warns on stderr, naming the option and why",
            arguments: [
                (
                    ["--store", "memory", "--data-dir", "/tmp/unused"], "--data-dir",
                    "--store memory keeps nothing on disk"
                ),
                (
                    ["--broker", "redis", "--redis-url", "redis://127.0.0.1:1", "--store-cpus", "0"], "--store-cpus",
                    "the Redis broker keeps no store of its own"
                ),
            ])
        func printConfigWarns(arguments: [String], option: String, reason: String) throws {
            let result = try CommandResult.run(
                ServerHarness.binDirectory.appendingPathComponent("stream-server"), ["--print-config"] + arguments)
            #expect(result.status == 0)
            #expect(
                result.stderr.contains("stream-server: warning: \(option) has no effect: \(reason)"), "\(result.stderr)"
            )
        }
    }
}
