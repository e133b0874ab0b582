import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// Hostile WebSocket handshakes and close frames (issue 13, items 13 and 24): a
    /// refused upgrade gets a status and a reason, never a bare close; a malformed close
    /// frame fails the connection with 1002.
    @Suite("hostile handshakes and close frames")
    struct HostileFramingTests {
        static let key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="
        static let base = ["Host: x", "Upgrade: websocket", "Connection: Upgrade"]

        static let handshakes: [(name: String, headers: [String], status: Int)] = [
            ("version 8", base + [key, "Sec-WebSocket-Version: 8"], 426),
            ("version 99", base + [key, "Sec-WebSocket-Version: 99"], 426),
            ("no version", base + [key], 426),
            ("1-byte key", base + ["Sec-WebSocket-Key: a", "Sec-WebSocket-Version: 13"], 400),
            ("no key", base + ["Sec-WebSocket-Version: 13"], 400),
            ("no Host", Array(base.dropFirst()) + [key, "Sec-WebSocket-Version: 13"], 400),
            ("two Hosts", base + ["Host: y", key, "Sec-WebSocket-Version: 13"], 400),
            (
                "unknown sub-protocols only",
                base + [key, "Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: chat, superchat"], 400
            ),
            (
                "10 KB sub-protocol list",
                base + [
                    key, "Sec-WebSocket-Version: 13",
                    "Sec-WebSocket-Protocol: " + String(repeating: "p", count: 10_000),
                ],
                431
            ),
            (
                "long sub-protocol list",
                base + [
                    key, "Sec-WebSocket-Version: 13",
                    "Sec-WebSocket-Protocol: " + String(repeating: "p,", count: 100) + "locstream.v1",
                ],
                400
            ),
            ("no Connection: Upgrade", ["Host: x", "Upgrade: websocket", key, "Sec-WebSocket-Version: 13"], 400),
        ]

        @Test("each malformed upgrade gets 400, 426 or 431 with a reason, not a bare close")
        func handshakes() async throws {
            try await ServerHarness.withBystander { server, _ in
                for (name, headers, status) in Self.handshakes {
                    let answer = try rawExchange(port: server.port, upgradeRequest(headers))
                    #expect(statuses(answer) == [status], "\(name)")
                    #expect(answer.contains("\"message\":"), "\(name) names its reason")
                    if status == 426 { #expect(answer.lowercased().contains("sec-websocket-version: 13"), "\(name)") }
                }
                let ok = try rawExchange(
                    port: server.port,
                    upgradeRequest(
                        Self.base + [
                            Self.key, "Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: chat, locstream.v1",
                        ]),
                    timeout: 1)
                #expect(statuses(ok) == [101])
                #expect(try server.metrics()[#"locstream_http_rejected_total{reason="handshake"}"#] ?? 0 >= 8)
                #expect(await server.logLine(containing: "upgrade refused") != nil)
            }
        }

        @Test("a close frame of one byte or with a code no peer may send gets 1002; a reason not UTF-8 fails it")
        func closeFrames() async throws {
            try await ServerHarness.withBystander { server, _ in
                let invalid: [[UInt8]] = [
                    [0x03], [0x13, 0x88], [0x03, 0xED], [0x03, 0xE7], [0x0B, 0xB7], [0xFF, 0xFF],
                ]
                for payload in invalid {
                    let socket = try RawWebSocket(port: server.port, path: "/v1/stream")
                    try socket.send(opcode: 0x8, payload: payload)
                    #expect(socket.readUntilClose()?.closeCode == 1002, "\(payload)")
                }
                for reason: [UInt8] in [[0xFF], [0xC3], [0xED, 0xA0, 0x80]] {
                    let socket = try RawWebSocket(port: server.port, path: "/v1/stream")
                    try socket.send(opcode: 0x8, payload: [0x03, 0xE8] + reason)
                    let code = socket.readUntilClose()?.closeCode
                    #expect(
                        code == 1007 || code == nil,
                        "reason \(reason) fails the connection, got \(String(describing: code))")
                }
                for code: UInt16 in [1000, 1001, 1011, 3000, 4999] {
                    let socket = try RawWebSocket(port: server.port, path: "/v1/stream")
                    try socket.send(opcode: 0x8, payload: [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye".utf8))
                    #expect(socket.readUntilClose()?.closeCode == code, "\(code) is echoed")
                }
            }
        }
    }
}
