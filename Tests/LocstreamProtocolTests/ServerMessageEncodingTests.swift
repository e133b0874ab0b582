import Foundation
import Testing

@testable import LocstreamProtocol

@Suite("Server frames")
struct ServerMessageEncodingTests {
    private func text(_ message: ServerMessage) -> String {
        String(decoding: message.encoded(), as: UTF8.self)
    }

    @Test func exactBytes() {
        #expect(
            text(.welcome(conn: "c-1", node: "n1"))
                == #"{"op":"welcome","conn":"c-1","node":"n1","proto":1}"#)
        #expect(
            text(.authed(client: "dispatch", exp: 1_764_424_800))
                == #"{"op":"authed","client":"dispatch","exp":1764424800}"#)
        #expect(
            text(.subscribed(sub: "B", restarted: true, snapshot: 3))
                == #"{"op":"subscribed","sub":"B","restarted":true,"snapshot":3}"#)
        #expect(
            text(.leave(sub: "B", device: "veh-17")) == #"{"op":"leave","sub":"B","device":"veh-17"}"#)
        #expect(text(.unsubscribed(sub: "B")) == #"{"op":"unsubscribed","sub":"B"}"#)
        #expect(text(.published(count: 1000)) == #"{"op":"published","count":1000}"#)
        #expect(text(.pong(t: nil)) == #"{"op":"pong"}"#)
        #expect(text(.pong(t: .integer(1_764_421_200_123))) == #"{"op":"pong","t":1764421200123}"#)
        #expect(text(.pong(t: .number(0.5))) == #"{"op":"pong","t":0.5}"#)
        #expect(
            text(.error(ProtocolError(.notSubscribed, "nothing to unsubscribe", failedOp: "unsubscribe")))
                == #"{"op":"error","code":"not_subscribed","message":"nothing to unsubscribe","failed_op":"unsubscribe"}"#
        )
        #expect(
            text(.error(ProtocolError(.internal, "broker unreachable")))
                == #"{"op":"error","code":"internal","message":"broker unreachable"}"#)
    }

    @Test func foundationReadsEveryFrame() throws {
        let welcome = try foundationObject(
            ServerMessage.welcome(conn: "c\"1", node: "node/é").encoded())
        #expect(welcome["op"] as? String == "welcome")
        #expect(welcome["conn"] as? String == "c\"1")
        #expect(welcome["node"] as? String == "node/é")
        #expect(welcome["proto"] as? Int == 1)

        let subscribed = try foundationObject(
            ServerMessage.subscribed(sub: "A\nB", restarted: false, snapshot: 0).encoded())
        #expect(subscribed["sub"] as? String == "A\nB")
        #expect(subscribed["restarted"] as? Bool == false)
        #expect(subscribed["snapshot"] as? Int == 0)

        let error = try foundationObject(
            ServerMessage.error(
                ProtocolError(.badRequest, "lat \"x\"\t\\ must be\u{1} a number", failedOp: "publish")
            ).encoded())
        #expect(error["code"] as? String == "bad_request")
        #expect(error["message"] as? String == "lat \"x\"\t\\ must be\u{1} a number")
        #expect(error["failed_op"] as? String == "publish")

        let pong = try foundationObject(ServerMessage.pong(t: nil).encoded())
        #expect(pong["t"] == nil)
        #expect(pong.keys.sorted() == ["op"])
    }

    @Test("every error code encodes as PROTOCOL.md spells it", arguments: ErrorCode.allCases)
    func errorCodes(code: ErrorCode) throws {
        let object = try foundationObject(ServerMessage.error(ProtocolError(code, "m")).encoded())
        #expect(object["code"] as? String == code.rawValue)
        #expect(object["failed_op"] == nil)
    }

    @Test func errorCodeNames() {
        #expect(
            ErrorCode.allCases.map(\.rawValue) == [
                "bad_json", "bad_request", "unknown_op", "unauthorized", "forbidden", "sub_id_reused",
                "too_large",
                "rate_limited", "not_subscribed", "internal",
            ])
    }

    @Test(
        "decode(encoded()) round-trips",
        arguments: [
            ServerMessage.welcome(conn: "c-1", node: "n1"),
            .authed(client: "dispatch", exp: 1_764_424_800),
            .subscribed(sub: "B", restarted: true, snapshot: 12),
            .loc(
                sub: "B",
                location: Location(
                    device: "veh-17", lat: 52.52, lon: 13.4, ts: 1, seq: 42, speed: 0, heading: 360, acc: 4.5,
                    attrs: .object(["k": .array([.integer(1), .null])]))),
            .leave(sub: "B", device: "veh-17"),
            .unsubscribed(sub: "B"),
            .published(count: 3),
            .pong(t: nil), .pong(t: .integer(-1)), .pong(t: .number(1.5)),
            .error(ProtocolError(.forbidden, "not yours", failedOp: "subscribe")),
            .error(ProtocolError(.unauthorized, "token expiring")),
        ])
    func roundTrip(message: ServerMessage) throws {
        #expect(try ServerMessage.decode(message.encoded()) == message)
    }

    @Test func decodingRejectsWhatTheServerNeverSends() {
        for text in [
            #"{"op":"loc","sub":"A","device":"d","lat":1,"lon":1,"ts":1}"#,  // no seq
            #"{"op":"error","code":"oops","message":"m"}"#,
            #"{"op":"subscribed","sub":"A","restarted":"yes","snapshot":0}"#,
            "[]",
        ] {
            #expect(throws: ProtocolError.self, "\(text)") { try ServerMessage.decode(bytes(text)) }
        }
        var code: ErrorCode?
        do { _ = try ServerMessage.decode(bytes(#"{"op":"later"}"#)) } catch { code = error.code }
        #expect(code == .unknownOp)
    }
}
