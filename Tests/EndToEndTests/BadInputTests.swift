import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// Hostile and malformed frames over a real connection: each gets its exact error
    /// code, the connection stays usable, and the server stays up.
    @Suite("bad input over the wire")
    struct BadInputTests {
        static let corpus: [(frame: String, code: ErrorCode)] = [
            ("", .badJSON), (" ", .badJSON), ("nope", .badJSON), ("{", .badJSON), ("}", .badJSON),
            (#"{"op":"ping",}"#, .badJSON), (#"{'op':'ping'}"#, .badJSON), (#"{"op":NaN}"#, .badJSON),
            (#"{"op":"ping","t":NaN}"#, .badJSON), (#"{"op":"ping","t":Infinity}"#, .badJSON),
            (#"{"op":"ping","t":1e400}"#, .badJSON), (#"{"op":"ping"}{"op":"ping"}"#, .badJSON),
            (String(repeating: "[", count: 30_000), .badJSON), (#"{"op":"ping","t":01}"#, .badJSON),
            ("null", .badRequest), ("42", .badRequest), (#""ping""#, .badRequest), ("[]", .badRequest),
            ("{}", .badRequest), (#"{"op":null}"#, .badRequest), (#"{"op":7}"#, .badRequest),
            (#"{"op":["ping"]}"#, .badRequest), (#"{"op":"ping","t":"now"}"#, .badRequest),
            (#"{"op":"launch"}"#, .unknownOp), (#"{"op":""}"#, .unknownOp),
            (#"{"op":"subscribe"}"#, .badRequest), (#"{"op":"subscribe","sub":"","devices":["a"]}"#, .badRequest),
            (#"{"op":"subscribe","sub":"a","devices":[]}"#, .badRequest),
            (#"{"op":"subscribe","sub":"a","devices":["a b"]}"#, .badRequest),
            (#"{"op":"subscribe","sub":"a","devices":"a"}"#, .badRequest),
            (#"{"op":"subscribe","sub":"a","devices":["a"],"area":{"bbox":[0,0,1,1]}}"#, .badRequest),
            (#"{"op":"subscribe","sub":"a","area":{"bbox":[0,0,0,1]}}"#, .badRequest),
            (#"{"op":"subscribe","sub":"a","area":{"center":[0,0],"radius_m":0}}"#, .badRequest),
            (#"{"op":"subscribe","sub":"a","devices":["a"],"since":{"a":-1}}"#, .badRequest),
            (#"{"op":"subscribe","sub":"a","devices":["a"],"snapshot":"yes"}"#, .badRequest),
            (
                "{\"op\":\"subscribe\",\"sub\":\"" + String(repeating: "s", count: 129) + "\",\"devices\":[\"a\"]}",
                .badRequest
            ),
            (#"{"op":"publish"}"#, .badRequest), (#"{"op":"publish","locs":[]}"#, .badRequest),
            (#"{"op":"publish","loc":{"device":"a","lat":91,"lon":0,"ts":1}}"#, .badRequest),
            (#"{"op":"publish","loc":{"device":"a","lat":0,"lon":-181,"ts":1}}"#, .badRequest),
            (#"{"op":"publish","loc":{"device":"a","lat":0,"lon":0,"ts":1.5}}"#, .badRequest),
            (#"{"op":"publish","loc":{"device":"a","lat":0,"lon":0,"ts":-1}}"#, .badRequest),
            (#"{"op":"publish","loc":{"device":"a","lat":0,"lon":0,"ts":1,"speed":-1}}"#, .badRequest),
            (#"{"op":"publish","loc":{"device":"a","lat":0,"lon":0,"ts":1,"heading":361}}"#, .badRequest),
            (#"{"op":"publish","loc":{"device":"a","lat":"0","lon":0,"ts":1}}"#, .badRequest),
            (
                #"{"op":"publish","loc":{"device":"a","lat":0,"lon":0,"ts":1,"attrs":{"k":""#
                    + String(repeating: "x", count: 600) + #""}}}"#, .badRequest
            ),
            (#"{"op":"publish","loc":{"device":"a","lat":0,"lon":0,"ts":1,"attrs":[1]}}"#, .badRequest),
            (
                #"{"op":"subscribe","sub":"a","devices":["#
                    + (0...1000).map { "\"d\($0)\"" }.joined(separator: ",") + "]}", .tooLarge
            ),
            (#"{"op":"auth"}"#, .badRequest), (#"{"op":"auth","token":5}"#, .badRequest),
            (#"{"op":"unsubscribe"}"#, .notSubscribed),
        ]

        @Test("each hostile frame gets its exact error code; the connection and the server survive")
        func corpusOverTheWire() async throws {
            #expect(Self.corpus.count >= 40)
            try await ServerHarness.withClient(["--error-budget", "1000"], bystander: .standard) { server, client in
                let attacker = try await StreamTestClient(client, url: server.url("/v1/stream"))
                for (frame, code) in Self.corpus {
                    attacker.send(raw: frame)
                    let error = await attacker.nextError()
                    #expect(error?.code == code, "\(frame.prefix(80))")
                    #expect(error?.message.isEmpty == false)
                }
                attacker.connection.send(OutboundFrame(opcode: .binary, body: [0xFF, 0x00]))
                if case .error(let error)? = await attacker.next() { #expect(error.code == .badRequest) }
                attacker.send(.ping(t: .integer(9)))
                #expect(await attacker.next() == .pong(t: .integer(9)))
                #expect(await server.logLine(containing: "request refused") != nil, "refusals are logged at info")
                let refusedLines = server.log.split(separator: "\n").filter { $0.contains("request refused") }.count
                #expect(refusedLines <= 2 * 20, "a burst of bad frames costs the log at most 20 lines a second")
            }
        }

        @Test("invalid UTF-8 in a text frame closes with 1007")
        func invalidUTF8() async throws {
            let server = try await ServerHarness()
            let socket = try RawWebSocket(port: server.port, path: "/v1/stream")
            _ = try socket.readFrame()
            try socket.send(opcode: 0x1, payload: Array(#"{"op":"ping","t":""#.utf8) + [0xC3, 0x28] + Array("}".utf8))
            #expect(socket.readUntilClose()?.closeCode == 1007)
        }
    }
}
