import Foundation
import Testing

@testable import LocstreamProtocol

@Suite("Shared location encoding")
struct EncodedLocationTests {
    private let full = Location(
        device: "veh-17", lat: 52.520008, lon: 13.404954, ts: 1_764_421_200_123, seq: 42, speed: 8.3,
        heading: 271.0, acc: 4.5,
        attrs: .object([
            "driver": .string("Zoë \"the\" driver"), "battery": .integer(87), "temp": .number(-3.5),
            "flags": .array([.bool(true), .null]), "nested": .object(["a": .object(["b": .integer(1)])]),
        ]))

    @Test func prefixAndBodyBytes() {
        let minimal = Location(device: "veh-17", lat: 52.52, lon: 13.4, ts: 1_764_421_200_123, seq: 42)
        #expect(
            String(decoding: LocationFrame.prefix(sub: "A"), as: UTF8.self) == #"{"op":"loc","sub":"A","#)
        #expect(
            String(decoding: EncodedLocation(minimal).body, as: UTF8.self)
                == #""device":"veh-17","lat":52.52,"lon":13.4,"ts":1764421200123,"seq":42}"#)
    }

    @Test func prefixEscapesTheSub() throws {
        let frame = EncodedLocation(full).frame(prefix: LocationFrame.prefix(sub: "a\"b\\c\n✓"))
        #expect(try foundationObject(frame)["sub"] as? String == "a\"b\\c\n✓")
    }

    @Test func prefixPlusBodyIsTheFullLocFrame() throws {
        let encoded = EncodedLocation(full)
        #expect(encoded.location == full)
        let object = try foundationObject(LocationFrame.prefix(sub: "dispatch-1") + encoded.body)
        #expect(object["op"] as? String == "loc")
        #expect(object["sub"] as? String == "dispatch-1")
        #expect(object["device"] as? String == "veh-17")
        #expect(object["lat"] as? Double == 52.520008)
        #expect(object["lon"] as? Double == 13.404954)
        #expect(object["ts"] as? Int64 == 1_764_421_200_123)
        #expect(object["seq"] as? Int == 42)
        #expect(object["speed"] as? Double == 8.3)
        #expect(object["heading"] as? Double == 271)
        #expect(object["acc"] as? Double == 4.5)
        let attrs = try #require(object["attrs"] as? NSDictionary)
        let expectedAttrs: NSDictionary = [
            "driver": "Zoë \"the\" driver", "battery": 87, "temp": -3.5, "flags": [true, NSNull()],
            "nested": ["a": ["b": 1]],
        ]
        #expect(attrs == expectedAttrs)
    }

    @Test func attrsEchoExactly() throws {
        let published = try ClientMessage.decode(
            bytes(publishFrame(["attrs": #"{"n":1,"x":1.0,"s":"é\u0001"}"#])))
        guard case .publish(let locations, _) = published, var location = locations.first else {
            Issue.record("not a publish")
            return
        }
        location.seq = 7
        let body = String(decoding: EncodedLocation(location).body, as: UTF8.self)
        #expect(body.hasSuffix(#""seq":7,"attrs":{"n":1,"s":"é\u0001","x":1.0}}"#))
    }

    @Test func optionalFieldsAreOmittedWhenAbsent() throws {
        let object = try foundationObject(
            EncodedLocation(Location(device: "d", lat: 0, lon: 0, ts: 0, seq: 1)).frame(
                prefix: LocationFrame.prefix(sub: "A")))
        #expect(object.keys.sorted() == ["device", "lat", "lon", "op", "seq", "sub", "ts"])
    }

    @Test func theFrameDecodesBackToTheLocation() throws {
        let frame = EncodedLocation(full).frame(prefix: LocationFrame.prefix(sub: "B"))
        #expect(try ServerMessage.decode(frame) == .loc(sub: "B", location: full))
        #expect(ServerMessage.loc(sub: "B", location: full).encoded() == frame)
    }
}
