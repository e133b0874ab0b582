import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// Refused tokens and refused routes are counted and logged through the throttled refusal
    /// path (issue 13): an operator sees them, and a flood of them cannot flood the log.
    @Suite("refusal logs")
    struct RefusalLogTests {
        @Test("HTTP route errors, refused upgrades and bad tokens each leave a log line and a count")
        func refusedRoutesAreLogged() async throws {
            let bystander = Bystander.Options(token: try TestTokens.make())
            try await ServerHarness.withClient(TestTokens.serverOptions(), bystander: bystander) { server, client in
                let badToken = try TestTokens.make(key: "another-secret-that-is-long-enough-0000")
                let requests: [(method: String, path: String, headers: [String], status: Int, line: String)] = [
                    ("GET", "/nope", [], 404, "method=GET path=/nope status=404 code=not_found"),
                    ("POST", "/healthz", [], 405, "method=POST path=/healthz status=405 code=method_not_allowed"),
                    ("POST", "/v1/locations", [], 401, "path=/v1/locations status=401 code=unauthorized"),
                    (
                        "GET", "/v1/devices/veh-1", ["Authorization: Bearer \(badToken)"], 401,
                        "path=/v1/devices/veh-1 status=401 code=unauthorized"
                    ),
                    ("GET", "/v1/devices/a*b", [], 400, "path=/v1/devices/a*b status=400 code=bad_request"),
                ]
                for (method, path, headers, status, line) in requests {
                    let body: String? = method == "POST" ? "[]" : nil
                    let answer = try RawHTTPResponse.fetch(
                        port: server.port, method: method, path: path, body: body, headers: headers)
                    #expect(answer.status == status, "\(method) \(path)")
                    #expect(await server.logLine(containing: line) != nil, "\(method) \(path) is logged")
                }
                let upgrade = try rawExchange(
                    port: server.port,
                    "GET /nope-ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                #expect(statuses(upgrade) == [404])
                #expect(await server.logLine(containing: "path=/nope-ws status=404") != nil, "the upgrade is logged")

                let byOp = try await StreamTestClient(client, url: server.url("/v1/stream"))
                byOp.send(.auth(token: badToken))
                #expect(await byOp.nextError()?.code == .unauthorized)
                let onUpgrade = try await StreamTestClient(client, url: server.url("/v1/stream?token=\(badToken)"))
                #expect(await onUpgrade.nextError()?.code == .unauthorized)
                #expect(
                    await server.logLine(containing: "auth failed conn=\(byOp.connectionID) reason=bad_signature")
                        != nil)
                #expect(
                    await server.logLine(containing: "auth failed conn=\(onUpgrade.connectionID) reason=bad_signature")
                        != nil)
                #expect(!server.log.contains(badToken), "tokens are never logged")

                let metrics = try server.metrics()
                #expect(metrics[#"locstream_http_route_refusals_total{status="404"}"#] ?? 0 >= 2)
                #expect(metrics[#"locstream_http_route_refusals_total{status="405"}"#] == 1)
                #expect(metrics[#"locstream_http_route_refusals_total{status="401"}"#] == 2)
                #expect(metrics[#"locstream_auth_failures_total{reason="bad_signature"}"#] == 3)
            }
        }
    }
}
