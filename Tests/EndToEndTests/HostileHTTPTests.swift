import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// Hostile HTTP framing (issue 13, items 1, 14, 15, 19 and 24, and tunnels): each request is
    /// answered once, in order, with a status, and the node stays healthy beside it.
    @Suite("hostile HTTP requests")
    struct HostileHTTPTests {
        static let host = "Host: x\r\n"
        static let post = "POST /v1/locations HTTP/1.1\r\n\(host)Content-Length: 2\r\n\r\n[]"

        /// Requests that wedged a node: a second request (or a body) pipelined behind the first.
        static let pipelined: [(name: String, bytes: String, status: Int)] = [
            ("GET then POST", "GET /healthz HTTP/1.1\r\n\(host)\r\n" + post, 200),
            ("two POSTs", post + post, 400),
            ("GET with a body", "GET /healthz HTTP/1.1\r\n\(host)Content-Length: 3\r\n\r\nabc" + post, 200),
            ("POST to an unknown path", "POST /nope HTTP/1.1\r\n\(host)Content-Length: 2\r\n\r\n[]" + post, 404),
            (
                "TE.CL smuggling",
                "POST /v1/locations HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"
                    + "8\r\nSMUGGLED\r\n0\r\n\r\n" + post, 400
            ),
        ]

        @Test("a pipelined request gets one answer, then a close; the node keeps serving and stops on SIGTERM")
        func pipelining() async throws {
            let server = try await ServerHarness()
            try await server.withBystander(.init(maxRSSGrowthKiB: 50 * 1024)) { _ throws in
                for _ in 0..<20 {
                    for (name, bytes, status) in Self.pipelined {
                        #expect(statuses(try rawExchange(port: server.port, bytes)) == [status], "\(name)")
                    }
                }
            }
            let start = ContinuousClock.now
            #expect(await server.stop() == 0)
            #expect(ContinuousClock.now - start < .seconds(5))
        }

        /// Malformed `Content-Length` values, each answered 400 (413 past the limit) with a close.
        static let lengths: [(header: String, status: Int)] = [
            ("Content-Length: -1", 400), ("Content-Length: +5", 400), ("Content-Length: 5x", 400),
            ("Content-Length: abc", 400), ("Content-Length: 0x10", 400), ("Content-Length: 5 5", 400),
            ("Content-Length: 99999999999999999999999", 400), ("Content-Length: 5\r\nContent-Length: 6", 400),
            ("Content-Length: 5, 6", 400), ("Content-Length:", 400), ("Content-Length: 2000000", 413),
        ]

        @Test("a malformed Content-Length gets 400 and a close, never a held connection")
        func contentLength() async throws {
            try await ServerHarness.withBystander { server, _ in
                for (header, status) in Self.lengths {
                    let answer = try rawExchange(
                        port: server.port, "POST /v1/locations HTTP/1.1\r\n\(Self.host)\(header)\r\n\r\n[]")
                    #expect(statuses(answer) == [status], "\(header)")
                    #expect(answer.lowercased().contains("connection: close"), "\(header)")
                }
                let same = try rawExchange(
                    port: server.port,
                    "GET /healthz HTTP/1.1\r\n\(Self.host)Content-Length: 2\r\nContent-Length: 2\r\n\r\nab")
                #expect(statuses(same) == [200])
                #expect(try server.metrics()[#"locstream_http_rejected_total{reason="content_length"}"#] ?? 0 >= 10)
                #expect(await server.logLine(containing: "http request refused") != nil)
            }
        }

        @Test("Transfer-Encoding is refused: no smuggled request is ever answered")
        func transferEncoding() async throws {
            try await ServerHarness.withBystander { server, _ in
                let smuggled = "GET /v1/devices/zzz HTTP/1.1\r\nHost: x\r\n\r\n"
                let chunk = String(smuggled.utf8.count, radix: 16) + "\r\n" + smuggled + "\r\n0\r\n\r\n"
                let cases: [(String, Int)] = [
                    (
                        "POST /v1/locations HTTP/1.1\r\n\(Self.host)Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n",
                        400
                    ),
                    ("GET /healthz HTTP/1.1\r\n\(Self.host)Transfer-Encoding: chunked\r\n\r\n", 411),
                    ("POST /v1/locations HTTP/1.1\r\n\(Self.host)Transfer-Encoding: chunked\r\n\r\n", 411),
                    ("POST /v1/locations HTTP/1.1\r\n\(Self.host)Transfer-Encoding: gzip, chunked\r\n\r\n", 411),
                ]
                for (head, status) in cases {
                    #expect(statuses(try rawExchange(port: server.port, head + chunk)) == [status], "\(head)")
                }
                let valid = "[{\"device\":\"te-1\",\"lat\":1,\"lon\":2,\"ts\":3}]"
                let chunked = String(valid.utf8.count, radix: 16) + "\r\n" + valid + "\r\n0\r\n\r\n"
                let answer = try rawExchange(
                    port: server.port,
                    "POST /v1/locations HTTP/1.1\r\n\(Self.host)Transfer-Encoding: chunked\r\n\r\n" + chunked)
                #expect(statuses(answer) == [411])
                #expect(answer.contains("Content-Length"))
            }
        }

        @Test("HEAD works on every GET route: the GET's status and headers, no body")
        func head() async throws {
            try await ServerHarness.withBystander { server, _ in
                for path in ["/healthz", "/readyz", "/metrics", "/", "/v1/devices/nobody"] {
                    let get = try RawHTTPResponse.fetch(port: server.port, path: path)
                    let answer = try rawExchange(
                        port: server.port,
                        "HEAD \(path) HTTP/1.1\r\n\(Self.host)\r\nGET /healthz HTTP/1.1\r\n\(Self.host)\r\n")
                    #expect(statuses(answer) == [get.status], "\(path)")
                    let parts = answer.components(separatedBy: "\r\n\r\n")
                    #expect(parts.count == 2 && parts[1].isEmpty, "HEAD \(path) has no body")
                    if path != "/metrics" {
                        #expect(answer.lowercased().contains("content-length: \(get.body.utf8.count)\r\n"), "\(path)")
                    }
                }
                #expect(
                    statuses(try rawExchange(port: server.port, "HEAD /v1/locations HTTP/1.1\r\n\(Self.host)\r\n")) == [
                        405
                    ]
                )
            }
        }

        @Test("Host and version: HTTP/1.1 needs exactly one Host; only HTTP/1.0 and 1.1 are served")
        func hostAndVersion() async throws {
            try await ServerHarness.withBystander { server, _ throws in
                let cases: [(String, Int)] = [
                    ("GET /healthz HTTP/1.1\r\n\r\n", 400),
                    ("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
                    ("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", 400),
                    ("GET /healthz HTTP/1.0\r\n\r\n", 200),
                    ("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n", 200),
                    (
                        "GET /healthz HTTP/1.1\r\nHost: a\r\nUser-Agent: \(String(repeating: "y", count: 5000))\r\n\r\n",
                        431
                    ),
                    ("GET /healthz?\(String(repeating: "q", count: 5000)) HTTP/1.1\r\nHost: a\r\n\r\n", 414),
                ]
                for (request, status) in cases {
                    #expect(statuses(try rawExchange(port: server.port, request)) == [status], "\(request.prefix(60))")
                }
            }
        }

        @Test("CONNECT and an h2c upgrade are refused with a status, never held as a tunnel or HTTP/2")
        func tunnelsAndOtherProtocols() async throws {
            try await ServerHarness.withBystander { server, _ throws in
                let cases: [(String, Int)] = [
                    ("CONNECT 127.0.0.1:443 HTTP/1.1\r\n\(Self.host)\r\n", 405),
                    (
                        "GET /healthz HTTP/1.1\r\n\(Self.host)Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                            + "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n", 400
                    ),
                ]
                for _ in 0..<10 {
                    for (request, status) in cases {
                        let start = ContinuousClock.now
                        #expect(
                            statuses(try rawExchange(port: server.port, request)) == [status], "\(request.prefix(40))")
                        #expect(ContinuousClock.now - start < .seconds(3), "answered and closed, not held")
                    }
                }
                #expect(try server.metrics()[#"locstream_http_rejected_total{reason="method"}"#] == 10)
            }
        }
    }
}
