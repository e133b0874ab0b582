import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// Token times (issue 13): at the ends of `Int64` (item 3: an `auth` op with `exp`
    /// 9223372036854775807 crashed the node; each case runs beside a bystander), and the order
    /// of `authed` and the expiry warning (item 21).
    @Suite("token times at the limits")
    struct TokenTimeTests {
        /// Payloads with extreme time claims, and whether the token must be accepted.
        static let cases: [(payload: String, accepted: Bool)] = [
            (#"{"sub":"far","exp":9223372036854775807}"#, true),
            (#"{"sub":"far","exp":9223372036854775807,"nbf":-9223372036854775808,"iat":-9223372036854775808}"#, true),
            (#"{"sub":"far","exp":9223372036854775807,"nbf":9223372036854775807}"#, false),
            (#"{"sub":"far","exp":9223372036854775807,"iat":9223372036854775807}"#, false),
            (#"{"sub":"far","exp":-9223372036854775808}"#, false),
            (#"{"sub":"far","exp":9.223372036854775807e18}"#, true),
            (#"{"sub":"far","exp":1e300}"#, false),
        ]

        @Test("extreme exp, nbf and iat by the auth op and on the upgrade: answered, and the node lives on")
        func extremeTimes() async throws {
            let server = try await ServerHarness(TestTokens.serverOptions())
            try await withWebSocketClient { client in
                try await server.withBystander(.init(token: try TestTokens.make())) { _ in
                    for (payload, accepted) in Self.cases {
                        let token = try TestTokens.signed(payload: payload)
                        let byOp = try await StreamTestClient(client, url: server.url("/v1/stream"))
                        byOp.send(.auth(token: token))
                        let reply = await byOp.next()
                        if accepted {
                            #expect(reply == .authed(client: "far", exp: .max), "\(payload)")
                        } else {
                            guard case .error(let error)? = reply else {
                                Issue.record("\(payload): expected an error, got \(String(describing: reply))")
                                continue
                            }
                            #expect(error.code == .unauthorized, "\(payload)")
                        }
                        byOp.send(.ping(t: .integer(7)))
                        #expect(await byOp.next() == .pong(t: .integer(7)), "\(payload)")
                        let onUpgrade = try await StreamTestClient(client, url: server.url("/v1/stream?token=\(token)"))
                        if !accepted { #expect(await onUpgrade.nextError()?.code == .unauthorized, "\(payload)") }
                        onUpgrade.send(.ping(t: .integer(8)))
                        #expect(await onUpgrade.next() == .pong(t: .integer(8)), "\(payload)")
                    }
                }
            }
            #expect(await server.stop() == 0)
        }

        @Test("an expired token closes the connection at exp plus --jwt-leeway, not at exp")
        func closesAfterLeeway() async throws {
            let leeway = 3.0
            try await ServerHarness.withClient(
                TestTokens.serverOptions(["--jwt-leeway", "3", "--token-warning", "1"])
            ) { server, client in
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                viewer.send(.auth(token: try TestTokens.make(expiresIn: 2)))
                guard case .authed(_, let exp)? = await viewer.next() else {
                    Issue.record("expected authed")
                    return
                }
                #expect(await viewer.nextError(within: .seconds(4))?.message == "token expiring")
                // Past exp, within the leeway: the connection still answers.
                let pastExp = Double(exp) + 1 - Date().timeIntervalSince1970
                if pastExp > 0 { try await Task.sleep(for: .seconds(pastExp)) }
                viewer.send(.ping(t: .integer(1)))
                #expect(await viewer.next() == .pong(t: .integer(1)))
                while await viewer.nextRaw(within: .seconds(leeway + 3)) != nil {}
                let closedAt = Date().timeIntervalSince1970
                #expect(viewer.connection.peerClose?.code == 1008)
                #expect(closedAt >= Double(exp) + leeway - 0.5, "closed \(closedAt - Double(exp)) s after exp")
            }
        }

        @Test("authed comes before the 'token expiring' warning of a token with less than --token-warning left")
        func authedBeforeWarning() async throws {
            try await ServerHarness.withClient(TestTokens.serverOptions(["--token-warning", "30"])) { server, client in
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                for attempt in 0..<30 {
                    viewer.send(.auth(token: try TestTokens.make(subject: "short-\(attempt)", expiresIn: 10)))
                    guard case .authed(let subject, _)? = await viewer.next() else {
                        Issue.record("attempt \(attempt): the first reply to auth must be authed")
                        break
                    }
                    #expect(subject == "short-\(attempt)")
                    let warning = await viewer.nextError()
                    #expect(
                        warning?.code == .unauthorized && warning?.message == "token expiring", "attempt \(attempt)")
                }
            }
        }
    }
}
