import Foundation
import LocstreamProtocol
import TestSupport
import Testing

extension EndToEnd {
    /// Numbers read from their digits, never through a rounded double (issue 13, items 16
    /// and 17): `ping.t` comes back exactly as written, and `ts`, `since` and
    /// `min_interval_ms` must be integers in range as written.
    @Suite("exact numbers")
    struct ExactNumberTests {
        /// `t` values that a double would change, and the common ones.
        static let pings = [
            "-0", "0", "-0.0", "18446744073709551616", "12345678901234567890123", "9007199254740993",
            "0.1000", "1E+3", "1e-7", "-9223372036854775809", "1.7976931348623157e308", "42",
        ]

        @Test("pong echoes t byte for byte, as the client wrote it")
        func pongEchoesT() async throws {
            let hostile = try await HostileConnection.start()
            let pinger = hostile.attacker
            for t in Self.pings {
                pinger.send(raw: #"{"op":"ping","t":\#(t)}"#)
                let reply = await pinger.nextRaw().map { String(decoding: $0.bytes, as: UTF8.self) }
                #expect(reply == #"{"op":"pong","t":\#(t)}"#)
            }
            await hostile.finish()
        }

        /// Frames whose integer field is not an integer in range once read exactly.
        static let inexact = [
            #"{"op":"publish","loc":{"device":"d-1","lat":1,"lon":2,"ts":9007199254740993.0}}"#,
            #"{"op":"publish","loc":{"device":"d-1","lat":1,"lon":2,"ts":9007199254740992.5}}"#,
            #"{"op":"publish","loc":{"device":"d-1","lat":1,"lon":2,"ts":90071992547409930e-1}}"#,
            #"{"op":"publish","loc":{"device":"d-1","lat":1,"lon":2,"ts":1e-400}}"#,
            #"{"op":"publish","loc":{"device":"d-1","lat":1,"lon":2,"ts":1764421200123.000000001}}"#,
            #"{"op":"subscribe","sub":"A","devices":["d-1"],"since":{"d-1":9223372036854775808.0}}"#,
            #"{"op":"subscribe","sub":"A","devices":["d-1"],"since":{"d-1":4.5}}"#,
            #"{"op":"subscribe","sub":"A","devices":["d-1"],"min_interval_ms":1000.0000000000001}"#,
            #"{"op":"subscribe","sub":"A","devices":["d-1"],"min_interval_ms":1e19}"#,
        ]

        /// Frames whose integer field is written otherwise but is exactly an integer in range.
        static let exact = [
            (
                #"{"op":"publish","ack":true,"loc":{"device":"d-1","lat":1,"lon":2,"ts":9007199254740992.0}}"#,
                "published"
            ),
            (
                #"{"op":"publish","ack":true,"loc":{"device":"d-1","lat":1,"lon":2,"ts":1.764421200123e12}}"#,
                "published"
            ),
            (#"{"op":"subscribe","sub":"B","devices":["d-1"],"since":{"d-1":9007199254740993.0}}"#, "subscribed"),
            (#"{"op":"subscribe","sub":"C","devices":["d-1"],"min_interval_ms":1.5e3}"#, "subscribed"),
        ]

        @Test("an integer field is refused unless its digits spell an integer in range; other spellings pass")
        func inexactIntegers() async throws {
            let hostile = try await HostileConnection.start()
            let sender = hostile.attacker
            for frame in Self.inexact {
                sender.send(raw: frame)
                #expect(await sender.nextError()?.code == .badRequest, "\(frame)")
            }
            for (frame, op) in Self.exact {
                sender.send(raw: frame)
                let reply = await sender.nextRaw().map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
                #expect(reply.hasPrefix(#"{"op":"\#(op)""#), "\(frame): \(reply)")
            }
            await hostile.finish()
        }
    }
}
