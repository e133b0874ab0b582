import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// `LOCSTREAM_` variables: unknown ones are warned about at start, and a bad value's error
    /// names its variable.
    @Suite("LOCSTREAM_ variables")
    struct EnvironmentWarningTests {
        private var binary: URL { ServerHarness.binDirectory.appendingPathComponent("stream-server") }

        @Test("an unknown LOCSTREAM_ variable is warned about and counted; service links and the client's are not")
        func unknownVariableWarned() async throws {
            let server = try await ServerHarness(
                environment: [
                    "LOCSTREAM_PROT": "9000", "LOCSTREAM_SERVICE_HOST": "10.0.0.1",
                    "LOCSTREAM_PORT_8080_TCP_ADDR": "10.0.0.1", "LOCSTREAM_CLIENT_TOKEN": "t",
                ])
            let line = try #require(await server.logLine(containing: "unknown environment variable ignored"))
            #expect(line.contains("LOCSTREAM_PROT") && line.contains("LOCSTREAM_PORT"), "\(line)")
            #expect(try server.metrics()["locstream_environment_unknown_variables"] == 1)
            #expect(await server.stop() == 0)
            let warnings = server.log.split(separator: "\n").filter { $0.contains("unknown environment variable") }
            #expect(warnings.count == 1, "\(warnings)")
        }

        @Test("--print-config warns on stderr too")
        func printConfigWarns() throws {
            let result = try CommandResult.run(
                binary, ["--print-config"], environment: ["LOCSTREAM_LOG_LEVL": "debug"])
            #expect(result.status == 0)
            #expect(
                result.stderr.contains(
                    "LOCSTREAM_LOG_LEVL is not an option (ignored); did you mean LOCSTREAM_LOG_LEVEL?"))
        }

        @Test(
            "a bad value from the environment exits 2 naming the variable",
            arguments: [
                ("LOCSTREAM_MAX_CONNECTIONS", "lots"), ("LOCSTREAM_LOG_FORMAT", "xml"),
                ("LOCSTREAM_RETENTION", "forever"), ("LOCSTREAM_BROKER", "kafka"),
            ])
        func badValueNamesVariable(variable: String, value: String) throws {
            let result = try CommandResult.run(binary, ["--print-config"], environment: [variable: value])
            #expect(result.status == 2)
            #expect(result.stderr.contains("stream-server: \(variable): --"), "\(result.stderr)")
        }

        @Test("LOCSTREAM_PORT from a Kubernetes service link says so")
        func serviceLinkPort() throws {
            let result = try CommandResult.run(
                binary, ["--print-config"], environment: ["LOCSTREAM_PORT": "tcp://10.0.0.1:8080"])
            #expect(result.status == 2)
            #expect(result.stderr.contains("LOCSTREAM_PORT: --port") && result.stderr.contains("enableServiceLinks"))
        }
    }
}
