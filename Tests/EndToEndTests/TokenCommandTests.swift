import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// `stream-client token` and `token inspect` against a real `--auth jwt` server.
    @Suite("stream-client token")
    struct TokenCommandTests {
        private let directory: TemporaryDirectory
        /// A secret file for the server and the client, with the trailing newline `echo` leaves.
        private let secretFile: String

        init() throws {
            directory = try TemporaryDirectory(prefix: "locstream-token")
            secretFile = try directory.file("secret", "token-command-test-secret-0123456789abcdef\n")
        }

        /// Runs `stream-client arguments` with `input` on stdin.
        private func client(_ arguments: [String], input: String = "") throws -> CommandResult {
            try CommandResult.run(
                ServerHarness.binDirectory.appendingPathComponent("stream-client"), arguments, input: Array(input.utf8))
        }

        /// Mints a token with `arguments` after `--secret-file`; records an issue unless it
        /// exits 0 with one line on stdout.
        private func mint(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
            let result = try client(["token", "--secret-file", secretFile] + arguments)
            #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stdout)", sourceLocation: sourceLocation)
            return String(lines.first ?? "")
        }

        /// The claims of `token`, decoded here with Foundation.
        private func claims(_ token: String) throws -> [String: Any] {
            var text = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+")
                .replacingOccurrences(of: "_", with: "/")
            text += String(repeating: "=", count: (4 - text.count % 4) % 4)
            let data = try #require(Data(base64Encoded: text))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        @Test("a minted token is accepted with exactly the rights it names: others are forbidden")
        func mintedTokenRights() async throws {
            let token = try mint(["--sub", "dispatch-9", "--devices", "veh-*", "--publish", "veh-1", "--ttl", "10m"])
            let minted = try claims(token)
            #expect(minted["sub"] as? String == "dispatch-9")
            #expect(minted["devices"] as? [String] == ["veh-*"] && minted["publish"] as? [String] == ["veh-1"])
            let issued = try #require(minted["iat"] as? Int)
            #expect(minted["exp"] as? Int == issued + 600 && abs(issued - Int(Date().timeIntervalSince1970)) < 5)

            try await ServerHarness.withClient(["--auth", "jwt", "--jwt-secret-file", secretFile]) { server, ws in
                var options = ClientConnectOptions()
                options.headers = [("Authorization", "Bearer \(token)")]
                let viewer = try await StreamTestClient(ws, url: server.url("/v1/stream"), options: options)
                viewer.send(subscribe("A", ["veh-1", "veh-2"]))
                #expect(await viewer.next() == .subscribed(sub: "A", restarted: false, snapshot: 0))
                viewer.send(subscribe("B", ["truck-1"]))
                #expect(await viewer.nextError()?.code == .forbidden)
                viewer.send(
                    .subscribe(
                        SubscribeRequest(sub: "C", target: .area(.bbox(minLon: 1, minLat: 1, maxLon: 2, maxLat: 2))))
                )
                #expect(await viewer.nextError()?.code == .forbidden)
                viewer.send(.publish([testLocation("veh-2")], ack: true))
                #expect(await viewer.nextError()?.code == .forbidden)
                viewer.send(.auth(token: token))
                #expect(await viewer.next() == .authed(client: "dispatch-9", exp: Int64(issued + 600)))

                // The token goes into --token as printed; --areas allows areas.
                let url = server.url("/v1/stream")
                let publish = try client([
                    "publish", url, "--device", "veh-1", "--lat", "52.5", "--lon", "13.4", "--token", token,
                ])
                #expect(publish.status == 0, "\(publish.stderr)")
                let refused = try client([
                    "publish", url, "--device", "veh-2", "--lat", "52.5", "--lon", "13.4", "--token", token,
                ])
                #expect(refused.status == 1 && refused.stderr.contains("forbidden"), "\(refused.stderr)")
                let areaToken = try mint(["--sub", "map", "--devices", "*", "--areas"])
                let area = try client([
                    "subscribe", url, "--bbox", "13,52,14,53", "--token", areaToken, "-C", "1", "-W", "10",
                ])
                #expect(area.status == 0 && area.stdout.contains("veh-1"), "\(area.stdout)\(area.stderr)")
            }
        }

        @Test("inspect says who, until when and what a token allows, and checks the signature with the secret")
        func inspectWithSecret() throws {
            let token = try mint(["--sub", "ops", "--devices", "veh-*,depot-1", "--areas", "--ttl", "2h"])
            let exp = try #require(try claims(token)["exp"] as? Int)
            let expiry = Date(timeIntervalSince1970: TimeInterval(exp)).formatted(.iso8601)
            let report = try client(["token", "inspect", token, "--secret-file", secretFile])
            #expect(report.status == 0, "\(report.stderr)")
            let lines = report.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains { $0.hasPrefix("subject:") && $0.hasSuffix("\"ops\"") }, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("expires:") && $0.contains(expiry) && $0.contains("(in 1h 59m") })
            #expect(lines.contains { $0.hasPrefix("devices:") && $0.hasSuffix("\"veh-*\", \"depot-1\"") })
            #expect(lines.contains { $0.hasPrefix("publish:") && $0.contains("none") })
            #expect(lines.contains { $0.hasPrefix("areas:") && $0.contains("yes") })
            #expect(lines.contains { $0.hasPrefix("signature:") && $0.contains("verified with the HS256") })
            #expect(lines.last?.hasPrefix("verdict:") == true && lines.last?.contains("valid until \(expiry)") == true)

            // The same from stdin, and without a key: decoded, the signature not checked.
            let piped = try client(["token", "inspect", "-"], input: token + "\n")
            #expect(piped.status == 0 && piped.stdout.contains("not checked"), "\(piped.stdout)\(piped.stderr)")

            // Another secret, or a payload changed under the same signature: refused.
            let otherSecret = try directory.file("other", "another-secret-of-more-than-32-bytes-0000")
            let wrongKey = try client(["token", "inspect", token, "--secret-file", otherSecret])
            #expect(wrongKey.status == 1 && wrongKey.stdout.contains("does not verify"), "\(wrongKey.stdout)")
            let parts = token.split(separator: ".")
            let forged =
                parts[0] + "." + JWTMint.base64URL(Array(#"{"sub":"ops","exp":\#(exp),"devices":["*"]}"#.utf8))
                + "." + parts[2]
            let tampered = try client(["token", "inspect", forged, "--secret-file", secretFile])
            #expect(tampered.status == 1 && tampered.stdout.contains("REFUSED"), "\(tampered.stdout)")
        }

        @Test("inspect: an expired token, a malformed one, an RS256 token with its public key")
        func inspectRefusals() throws {
            let secret = "token-command-test-secret-0123456789abcdef"
            let past = Int(Date().timeIntervalSince1970) - 120
            let expired = try TestTokens.signed(payload: #"{"sub":"old","exp":\#(past)}"#, key: secret)
            let report = try client(["token", "inspect", expired, "--secret-file", secretFile])
            #expect(report.status == 1 && report.stdout.contains("(2m "), "\(report.stdout)")
            #expect(report.stdout.split(separator: "\n").last?.contains("INVALID: the token has expired") == true)

            let malformed = try client(["token", "inspect", "not-a-jwt"])
            #expect(malformed.status == 1 && malformed.stderr.contains("not a token: the token has 1 parts"))
            #expect(malformed.stdout.isEmpty)

            let key = try OpenSSLTool.run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
            let keyFile = try directory.file("rsa.pem", key)
            let publicKey = try directory.file("rsa.pub", try OpenSSLTool.run(["pkey", "-in", keyFile, "-pubout"]))
            let input = JWTMint.signingInput(
                header: #"{"alg":"RS256","typ":"JWT"}"#, payload: #"{"sub":"svc","exp":\#(past + 3720)}"#)
            let rs256 = input + "." + JWTMint.base64URL(try JWTMint.signature(of: input, privateKeyPath: keyFile))
            let verified = try client(["token", "inspect", rs256, "--public-key", publicKey])
            #expect(verified.status == 0 && verified.stdout.contains("verified with the RS256 public key"))
            let hs256 = try mint(["--sub", "ops", "--devices", "*"])
            let mismatch = try client(["token", "inspect", hs256, "--public-key", publicKey])
            #expect(mismatch.status == 1 && mismatch.stdout.contains("only RS256 is accepted"), "\(mismatch.stdout)")
        }

        @Test("token: a missing or short secret file, bad patterns and a token that allows nothing are told clearly")
        func mintFailures() throws {
            let missing = try client(["token", "--secret-file", "/nonexistent/secret", "--sub", "a", "--devices", "*"])
            #expect(missing.status == 2 && missing.stdout.isEmpty)
            #expect(missing.stderr.contains("--secret-file: cannot open /nonexistent/secret: No such file"))
            let short = try directory.file("short", "too-short")
            let weak = try client(["token", "--secret-file", short, "--sub", "a"])
            #expect(weak.status == 2 && weak.stderr.contains("HS256 needs at least 32"), "\(weak.stderr)")
            let noKey = try client(["token", "--sub", "a"])
            #expect(noKey.status == 2 && noKey.stderr.contains("--secret-file is required"), "\(noKey.stderr)")
            let badPattern = try client(["token", "--secret-file", secretFile, "--sub", "a", "--devices", "veh/1"])
            #expect(badPattern.status == 2 && badPattern.stderr.contains("'veh/1'"), "\(badPattern.stderr)")
            let many = (1...40).map { "*-\($0)" }.joined(separator: ",")
            let tooMany = try client(["token", "--secret-file", secretFile, "--sub", "a", "--devices", many])
            #expect(tooMany.status == 2 && tooMany.stderr.contains("at most 32"), "\(tooMany.stderr)")
            let nothing = try client(["token", "--secret-file", secretFile, "--sub", "a"])
            #expect(nothing.status == 0 && nothing.stderr.contains("allows nothing"), "\(nothing.stderr)")
            let typo = try client(["token", "inspct", "x"])
            #expect(typo.status == 2 && typo.stderr.contains("did you mean inspect?"), "\(typo.stderr)")
            let noToken = try client(["token", "inspect"])
            #expect(noToken.status == 2 && noToken.stderr.contains("the token is missing"), "\(noToken.stderr)")
        }

        @Test("--help for token and for token inspect")
        func help() throws {
            let mintHelp = try client(["token", "--help"])
            #expect(mintHelp.status == 0)
            for option in ["--secret-file FILE", "--sub ID", "--devices", "--publish", "--areas", "--ttl DURATION"] {
                #expect(mintHelp.stdout.contains(option), "token --help names \(option)")
            }
            let inspectHelp = try client(["token", "inspect", "--help"])
            #expect(inspectHelp.status == 0 && inspectHelp.stdout.contains("Usage: stream-client token inspect"))
            #expect(inspectHelp.stdout.contains("--public-key PEM") && !inspectHelp.stdout.contains("--ttl"))
            let top = try client(["--help"])
            #expect(top.stdout.contains("token ") && top.stdout.contains("Mint a development token"))
        }
    }
}
