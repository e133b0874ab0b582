import Foundation
import LocstreamProtocol
import Testing
import WebSocketTransport

extension EndToEnd {
    /// Token times at the ends of `Int64` (issue 13, item 3): an `auth` op with
    /// `exp` 9223372036854775807 crashed the node. Each case runs beside a bystander.
    @Suite("token times at the limits")
    struct TokenTimeTests {
        /// Payloads with extreme time claims, and whether the token must be accepted.
        static let cases: [(payload: String, accepted: Bool)] = [
            (#"{"sub":"far","exp":9223372036854775807}"#, true),
            (#"{"sub":"far","exp":9223372036854775807,"nbf":-9223372036854775808,"iat":-9223372036854775808}"#, true),
            (#"{"sub":"far","exp":9223372036854775807,"nbf":9223372036854775807}"#, false),
            (#"{"sub":"far","exp":9223372036854775807,"iat":9223372036854775807}"#, false),
            (#"{"sub":"far","exp":-9223372036854775808}"#, false),
            (#"{"sub":"far","exp":9.223372036854775807e18}"#, false),
            (#"{"sub":"far","exp":1e300}"#, false),
        ]

        @Test("extreme exp, nbf and iat by the auth op and on the upgrade: answered, and the node lives on")
        func extremeTimes() async throws {
            let server = try await ServerHarness(TestTokens.serverOptions())
            let bystander = try await Bystander(server, token: try TestTokens.make())
            let client = try await WebSocketClient.start()
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
            await bystander.expectUnharmed()
            await bystander.stop()
            await client.shutdown()
            #expect(await server.stop() == 0)
        }
    }
}
