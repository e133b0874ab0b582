import Foundation
import Testing

extension EndToEnd {
    /// `stream-server`'s command line: help, bad options, the environment.
    @Suite("stream-server command line")
    struct CommandLineTests {
        private var binary: URL { ServerHarness.binDirectory.appendingPathComponent("stream-server") }

        @Test("--help lists every option and exits 0")
        func help() throws {
            let result = try CommandResult.run(binary, ["--help"])
            #expect(result.status == 0)
            for option in [
                "--host", "--port", "--node", "--tls-cert", "--tls-key", "--max-message-bytes", "--idle-timeout",
                "--shutdown-timeout", "--deflate", "--enable-echo", "--log-level", "--log-format",
            ] {
                #expect(result.stdout.contains(option), "\(option) in --help")
            }
        }

        @Test(
            "bad options exit 2 with a message naming the option",
            arguments: [
                (["--port", "70000"], "--port"), (["--bogus"], "--bogus"), (["--log-format", "xml"], "--log-format"),
                (["--tls-cert", "/nonexistent.pem"], "--tls-key"), (["--idle-timeout"], "--idle-timeout"),
                (["--max-message-bytes", "ten"], "--max-message-bytes"),
            ])
        func badOptions(arguments: [String], named: String) throws {
            let result = try CommandResult.run(binary, arguments)
            #expect(result.status == 2)
            #expect(result.stderr.contains(named))
        }

        @Test("LOCSTREAM_ variables set options, and flags win over them")
        func environment() async throws {
            let server = try await ServerHarness(
                ["--node", "from-flag"], environment: ["LOCSTREAM_NODE": "from-env", "LOCSTREAM_LOG_FORMAT": "json"])
            let line = server.log.split(separator: "\n").first { $0.contains("listening") } ?? ""
            #expect(line.hasPrefix("{"))
            #expect(line.contains("\"node\":\"from-flag\""))
            let bad = try CommandResult.run(binary, [], environment: ["LOCSTREAM_PORT": "nope"])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("--port"))
        }
    }
}
