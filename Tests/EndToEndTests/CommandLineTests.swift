import Foundation
import TestSupport
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

        @Test("--config fills options below flags and the environment; --print-config shows where each came from")
        func configFile() throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent(
                "locstream-\(UUID().uuidString).json")
            try Data(#"{"port": 9001, "node": "from-file", "deflate": true, "max-queued-bytes": 8192}"#.utf8).write(
                to: path)
            let result = try CommandResult.run(
                binary, ["--config", path.path, "--node", "from-flag", "--print-config"],
                environment: ["LOCSTREAM_PORT": "9002"])
            #expect(result.status == 0)
            let lines = result.stdout.split(separator: "\n").map { $0.replacingOccurrences(of: " ", with: "") }
            #expect(lines.contains("port=9002(env)"))
            #expect(lines.contains("node=from-flag(flag)"))
            #expect(lines.contains("max-queued-bytes=8192(config)"))
            try Data(#"{"prot": 1}"#.utf8).write(to: path)
            let bad = try CommandResult.run(binary, ["--config", path.path])
            #expect(bad.status == 2 && bad.stderr.contains("prot"))
        }

        @Test("LOCSTREAM_ variables set options, and flags win over them")
        func environment() async throws {
            let server = try await ServerHarness(
                ["--node", "from-flag"], environment: ["LOCSTREAM_NODE": "from-env", "LOCSTREAM_LOG_FORMAT": "json"])
            let line = server.log.split(separator: "\n").first { $0.contains("listening") } ?? ""
            #expect(line.hasPrefix("{"))
            #expect(line.contains("\"node\":\"from-flag\""))
            // The default loop is libev unless the run asks for another (`make test-poll`).
            let loop = ServerHarness.eventLoopArguments.last ?? "libev"
            #expect(line.contains("\"event_loop\":\"\(loop)\""))
            let bad = try CommandResult.run(binary, [], environment: ["LOCSTREAM_PORT": "nope"])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("--port"))
        }
    }
}
