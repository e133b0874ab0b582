import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// `--version`, `locstream_build_info` and the standard process metrics.
    @Suite("build info and process metrics")
    struct BuildInfoTests {
        /// A `--version` line: the program, the version, the commit and the Swift version.
        private static var version: Regex<(Substring, Substring, Substring, Substring, Substring)> {
            /^(stream-server|stream-client) (\d+\.\d+\.\d+) \(commit (\w+), Swift ([\w.]+)\)$/
        }

        /// `git ARGUMENTS` in the repository.
        private func git(_ arguments: [String]) throws -> CommandResult {
            try CommandResult.run(
                URL(fileURLWithPath: "/usr/bin/git"), ["-C", DeployTools.root.path] + arguments)
        }

        @Test("--version on both binaries names the version, a commit of this checkout and the Swift compiler")
        func versionFlag() throws {
            var lines: [String] = []
            for program in ["stream-server", "stream-client"] {
                let result = try CommandResult.run(
                    ServerHarness.binDirectory.appendingPathComponent(program), ["--version"])
                #expect(result.status == 0)
                let line = result.stdout.trimmingCharacters(in: .newlines)
                let match = try #require(line.wholeMatch(of: Self.version), "\(line)")
                #expect(match.output.1 == program)
                let commit = String(match.output.3)
                if try git(["rev-parse", "--show-toplevel"]).status == 0 {
                    let known = try git(["cat-file", "-e", commit + "^{commit}"]).status == 0
                    #expect(commit.count == 12 && known, "\(commit)")
                } else {
                    #expect(commit == "unknown")
                }
                lines.append(String(line.drop { $0 != " " }))
            }
            #expect(lines[0] == lines[1], "both binaries come from one build")
        }

        @Test("the stamp names the commit in a checkout and says unknown outside one or in a folder inside it")
        func stampOutsideCheckout() throws {
            let script = DeployTools.root.appendingPathComponent("Plugins/BuildStamp/stamp.sh").path
            let out = try TemporaryDirectory.lasting(prefix: "locstream-stamp")
            let head = try git(["rev-parse", "--short=12", "HEAD"]).stdout.trimmingCharacters(in: .newlines)
            let tarball = try TemporaryDirectory.lasting(prefix: "locstream-tarball")
            let cases = [
                (DeployTools.root.path, head.isEmpty ? "unknown" : head), (tarball.path, "unknown"),
                (DeployTools.root.appendingPathComponent("Sources").path, "unknown"),
            ]
            for (package, commit) in cases {
                let result = try CommandResult.run(URL(fileURLWithPath: "/bin/sh"), [script, package, out.path])
                #expect(result.status == 0, "\(result.stderr)")
                let stamp = try String(contentsOf: out.appendingPathComponent("BuildStamp.swift"), encoding: .utf8)
                #expect(stamp.contains("public static let commit = \"\(commit)\""), "\(package)")
            }
        }

        @Test("/metrics has locstream_build_info as --version says, and the process_ metrics of the server")
        func metrics() async throws {
            let before = Date().timeIntervalSince1970
            let server = try await ServerHarness()
            let after = Date().timeIntervalSince1970
            let body = try RawHTTPResponse.fetch(port: server.port, path: "/metrics").body
            let version = try CommandResult.run(
                ServerHarness.binDirectory.appendingPathComponent("stream-server"), ["--version"]
            ).stdout.trimmingCharacters(in: .newlines)
            let parts = try #require(version.wholeMatch(of: Self.version)).output
            #expect(
                body.contains(
                    #"locstream_build_info{version="\#(parts.2)",commit="\#(parts.3)",swift="\#(parts.4)"} 1"#))
            var samples: [String: Double] = [:]
            for line in body.split(separator: "\n") where line.hasPrefix("process_") {
                let fields = line.split(separator: " ")
                samples[String(fields[0])] = Double(fields[1])
            }
            #expect((samples["process_cpu_seconds_total"] ?? -1) >= 0)
            #expect((samples["process_resident_memory_bytes"] ?? 0) > 1_000_000)
            let open = try #require(samples["process_open_fds"])
            #expect(open >= 3 && open <= (samples["process_max_fds"] ?? 0))
            let start = try #require(samples["process_start_time_seconds"])
            #expect(start >= before - 2 && start <= after + 2, "started at \(start), between \(before) and \(after)")
            for name in samples.keys { #expect(body.contains("# TYPE \(name) "), "\(name)") }
        }
    }
}
