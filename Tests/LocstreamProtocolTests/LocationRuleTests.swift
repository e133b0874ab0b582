import Testing

@testable import LocstreamProtocol

@Suite("Location field rules")
struct LocationRuleTests {
    /// Each case: the member to replace (raw JSON, nil removes it), and whether it is accepted.
    @Test(
        "each bound just inside and just outside",
        arguments: [
            ("device", #""a""#, true), ("device", "\"\(String(repeating: "x", count: 128))\"", true),
            ("device", "\"\(String(repeating: "x", count: 129))\"", false), ("device", #""""#, false),
            ("device", #""AZaz09._:-""#, true), ("device", #""veh 17""#, false),
            ("device", #""veh/17""#, false),
            ("device", #""véh""#, false), ("device", "17", false), ("device", nil, false),
            ("lat", "-90", true), ("lat", "90", true), ("lat", "90.0", true),
            ("lat", "-90.000001", false),
            ("lat", "90.000001", false), ("lat", #""52.5""#, false), ("lat", "null", false),
            ("lat", nil, false),
            ("lon", "-180", true), ("lon", "180", true), ("lon", "-180.000001", false),
            ("lon", "180.000001", false),
            ("lon", "[13]", false), ("lon", nil, false),
            ("ts", "0", true), ("ts", "9007199254740992", true), ("ts", "-1", false),
            ("ts", "9007199254740993", false), ("ts", "1.5", false), ("ts", "1e3", true),
            ("ts", "1e30", false),
            ("ts", #""1764421200123""#, false), ("ts", nil, false),
            ("speed", "0", true), ("speed", "120.5", true), ("speed", "-0.001", false),
            ("speed", "true", false),
            ("speed", "null", false),
            ("heading", "0", true), ("heading", "360", true), ("heading", "-0.001", false),
            ("heading", "360.001", false),
            ("acc", "0", true), ("acc", "1e6", true), ("acc", "-1", false), ("acc", #""4.5""#, false),
            ("attrs", "{}", true), ("attrs", #"{"driver":"Ana","n":[1,2]}"#, true),
            ("attrs", #"{"k":"\#(String(repeating: "x", count: 504))"}"#, true),
            ("attrs", #"{"k":"\#(String(repeating: "x", count: 505))"}"#, false),
            ("attrs", "[]", false), ("attrs", #""driver""#, false), ("attrs", "null", false),
        ] as [(String, String?, Bool)])
    func bound(field: String, raw: String?, accepted: Bool) {
        let error = decodeError(publishFrame([field: raw]))
        #expect((error == nil) == accepted, "\(field)=\(raw ?? "absent"): \(String(describing: error))")
        if let error {
            #expect(error.code == .badRequest)
            #expect(error.message.hasPrefix("loc.\(field) "))
            #expect(error.failedOp == "publish")
        }
    }

    @Test func attrsBoundIsMeasuredOnCompactJSON() throws {
        // 512 bytes compact, but padded with whitespace far beyond that: still accepted.
        let padded = #"{ "k" :   ""# + String(repeating: "x", count: 504) + #""   }"#
        let message = try #require(decoded(publishFrame(["attrs": padded])))
        guard case .publish(let locations, _) = message else { throw Failure.notPublish }
        #expect(locations.first?.attrs?.encoded().count == 512)
    }

    @Test func messagesAreHuman() {
        #expect(
            decodeError(publishFrame(["lat": "91"]))?.message
                == "loc.lat must be a number between -90 and 90")
        #expect(
            decodeError(publishFrame(["lat": nil]))?.message
                == "loc.lat is missing: it must be a number between -90 and 90")
        #expect(
            decodeError(publishFrame(["ts": "0.5"]))?.message
                == "loc.ts must be an integer between 0 and 2^53 (milliseconds since the Unix epoch)")
        #expect(
            decodeError(#"{"op":"publish","loc":[1]}"#)?.message == "loc must be a location object")
    }

    @Test func aTimestampWrittenWithAnExponentIsTheSameInteger() throws {
        let message = try #require(decoded(publishFrame(["ts": "1.5e3"])))
        guard case .publish(let locations, _) = message else { throw Failure.notPublish }
        #expect(locations.first?.ts == 1500)
    }

    enum Failure: Error { case notPublish }
}
