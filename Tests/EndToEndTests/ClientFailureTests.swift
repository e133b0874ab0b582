import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// `stream-client` when things fail: a refused token, TLS, a wrong path, typos; and
    /// `subscribe -C` and `-W` for scripts.
    @Suite("stream-client when things fail")
    struct ClientFailureTests {
        private var client: URL { ServerHarness.binDirectory.appendingPathComponent("stream-client") }

        /// Runs `stream-client arguments` to its end (it must end by itself within `within`).
        private func run(_ arguments: [String], within limit: Duration = .seconds(20)) async throws -> CommandResult {
            let started = ContinuousClock.now
            let result = try CommandResult.run(client, arguments)
            #expect(started.duration(to: .now) < limit, "\(arguments) took too long")
            return result
        }

        @Test("subscribe with a refused, missing or too narrow token stops with exit 1 naming --token")
        func refusedToken() async throws {
            let server = try await ServerHarness(TestTokens.serverOptions())
            let url = server.url("/v1/stream")
            let narrow = try TestTokens.make(devices: ["veh-*"])
            for arguments in [
                ["--token", "not-a-token"], [], ["--token", narrow, "--devices", "truck-1"],
            ] {
                let result = try await run(["subscribe", url, "--devices", "veh-1"] + arguments)
                #expect(result.status == 1, "\(arguments)")
                #expect(result.stderr.contains("with --token"), "\(arguments): \(result.stderr)")
            }
        }

        @Test("the expiry warning does not stop subscribe; the close at expiry (1008) does, naming --token")
        func expiredToken() async throws {
            let server = try await ServerHarness(
                TestTokens.serverOptions(["--jwt-leeway", "0", "--token-warning", "2"]))
            let token = try TestTokens.make(expiresIn: 3)
            let result = try await run(["subscribe", server.url("/v1/stream"), "--devices", "veh-1", "--token", token])
            #expect(result.status == 1)
            #expect(result.stderr.contains("token expiring"), "the warning came first: \(result.stderr)")
            #expect(result.stderr.contains("close 1008") && result.stderr.contains("--token"), "\(result.stderr)")
        }

        @Test("a certificate that does not verify is named in words, with --cacert and --insecure as the way out")
        func tlsFailure() async throws {
            let certificate = try SelfSignedCertificate()
            let server = try await ServerHarness([
                "--tls-cert", certificate.certificatePath, "--tls-key", certificate.keyPath,
            ])
            let result = try await run(["subscribe", server.url("/v1/stream", scheme: "wss"), "--devices", "a"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("certificate verify failed: self-signed certificate"), "\(result.stderr)")
            #expect(result.stderr.contains("--cacert") && result.stderr.contains("--insecure"))
        }

        @Test("a wrong path says the HTTP status")
        func wrongPath() async throws {
            let server = try await ServerHarness()
            let result = try await run(["subscribe", server.url("/v2/stream"), "--devices", "a"])
            #expect(result.status == 1)
            #expect(result.stderr.contains("404 Not Found") && result.stderr.contains("/v1/stream"), "\(result.stderr)")
        }

        @Test("-C N exits 0 after N locations; -W SECONDS exits 0 when nothing arrives")
        func countAndWait() async throws {
            let server = try await ServerHarness()
            let url = server.url("/v1/stream")
            for device in ["veh-1", "veh-2", "veh-3"] {
                #expect(try await run(["publish", url, "--device", device, "--lat", "1", "--lon", "2"]).status == 0)
            }
            let counted = try await run(["subscribe", url, "--devices", "veh-1,veh-2,veh-3", "-C", "2"])
            #expect(counted.status == 0)
            #expect(counted.stdout.split(separator: "\n").count == 2, "\(counted.stdout)")
            let started = ContinuousClock.now
            let waited = try await run(["subscribe", url, "--devices", "nobody", "-W", "1"])
            #expect(waited.status == 0 && waited.stdout.isEmpty)
            #expect(started.duration(to: .now) >= .seconds(1))
        }

        @Test("a mistyped subcommand or option gets a did-you-mean")
        func didYouMean() async throws {
            let subcommand = try await run(["subscirbe", "ws://127.0.0.1:1"])
            #expect(subcommand.status == 2 && subcommand.stderr.contains("did you mean subscribe?"))
            let option = try await run(["publish", "ws://127.0.0.1:1", "--devise", "a", "--lat", "1", "--lon", "2"])
            #expect(option.status == 2 && option.stderr.contains("did you mean --device?"), "\(option.stderr)")
        }
    }
}
