import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// What `docs/protocol.md` ("HTTP endpoints") promises of every route: standard reason
    /// phrases, 405 with `Allow` for a wrong method, 426 for the stream without an upgrade.
    @Suite("HTTP routes and status lines")
    struct HTTPRouteTests {
        /// The status line of `response`, without its CRLF.
        private func statusLine(_ response: RawHTTPResponse) -> String {
            String(response.headers.prefix { $0 != "\r\n" })
        }

        @Test("every status line carries its standard reason phrase")
        func reasonPhrases() async throws {
            let server = try await ServerHarness(["--max-devices", "1"])
            let port = server.port
            let location = #"[{"device":"veh-1","lat":1,"lon":2,"ts":1}]"#
            let cases: [(response: RawHTTPResponse, line: String)] = [
                (try .fetch(port: port, path: "/healthz"), "HTTP/1.1 200 OK"),
                (
                    try .fetch(port: port, method: "POST", path: "/v1/locations", body: location),
                    "HTTP/1.1 202 Accepted"
                ),
                (
                    try .fetch(
                        port: port, method: "POST", path: "/v1/locations",
                        body: location.replacing("veh-1", with: "veh-2")),
                    "HTTP/1.1 507 Insufficient Storage"
                ),
                (try .fetch(port: port, method: "POST", path: "/v1/locations", body: "[]"), "HTTP/1.1 400 Bad Request"),
                (try .fetch(port: port, path: "/nope"), "HTTP/1.1 404 Not Found"),
                (try .fetch(port: port, method: "DELETE", path: "/healthz"), "HTTP/1.1 405 Method Not Allowed"),
                (try .fetch(port: port, path: "/v1/stream"), "HTTP/1.1 426 Upgrade Required"),
                (
                    try .fetch(
                        port: port, method: "POST", path: "/v1/locations",
                        body: String(repeating: " ", count: (1 << 20) + 1)),
                    "HTTP/1.1 413 Content Too Large"
                ),
            ]
            for (response, line) in cases {
                #expect(statusLine(response) == line)
            }
        }

        @Test("a wrong method on a known route is 405 with Allow; an unknown path stays 404")
        func wrongMethods() async throws {
            let server = try await ServerHarness()
            let cases: [(method: String, path: String, allow: String)] = [
                ("DELETE", "/healthz", "GET, HEAD"), ("POST", "/readyz", "GET, HEAD"), ("PUT", "/metrics", "GET, HEAD"),
                ("GET", "/v1/locations", "POST"), ("DELETE", "/v1/devices/veh-1", "GET, HEAD"),
                ("POST", "/", "GET, HEAD"), ("DELETE", "/map.js", "GET, HEAD"), ("POST", "/v1/stream", "GET, HEAD"),
            ]
            for (method, path, allow) in cases {
                let body: String? = ["POST", "PUT"].contains(method) ? "{}" : nil
                let response = try RawHTTPResponse.fetch(port: server.port, method: method, path: path, body: body)
                #expect(response.status == 405, "\(method) \(path)")
                #expect(response.header("allow") == allow, "\(method) \(path)")
                #expect(response.body.contains(#""code":"method_not_allowed""#), "\(method) \(path)")
            }
            #expect(try RawHTTPResponse.fetch(port: server.port, method: "DELETE", path: "/nope").status == 404)
            let metrics = try RawHTTPResponse.fetch(port: server.port, path: "/metrics").body
            #expect(metrics.contains(#"locstream_http_route_refusals_total{status="405"} \#(cases.count)"#))
        }

        @Test("GET /v1/stream without an upgrade is 426 Upgrade Required with Upgrade: websocket")
        func streamWithoutUpgrade() async throws {
            let server = try await ServerHarness()
            for method in ["GET", "HEAD"] {
                let response = try RawHTTPResponse.fetch(port: server.port, method: method, path: "/v1/stream")
                #expect(response.status == 426, "\(method)")
                #expect(response.header("upgrade") == "websocket", "\(method)")
            }
            let body = try RawHTTPResponse.fetch(port: server.port, path: "/v1/stream").body
            #expect(body.contains(#""code":"upgrade_required""#))
            #expect(try RawHTTPResponse.fetch(port: server.port, path: "/v1/echo").status == 404)
            let metrics = try RawHTTPResponse.fetch(port: server.port, path: "/metrics").body
            #expect(metrics.contains(#"locstream_http_route_refusals_total{status="426"} 3"#))
        }
    }
}
