import Testing

@testable import LocstreamProtocol

@Suite("Publish rules")
struct PublishRuleTests {
    private func locs(_ count: Int) -> String {
        "[" + (0..<count).map { locationJSON(["device": "\"d\($0)\""]) }.joined(separator: ",") + "]"
    }

    @Test func oneToAThousandLocations() {
        guard case .publish(let one, _)? = decoded(#"{"op":"publish","locs":"# + locs(1) + "}") else {
            Issue.record("one location not decoded")
            return
        }
        #expect(one.count == 1)
        guard case .publish(let thousand, _)? = decoded(#"{"op":"publish","locs":"# + locs(1000) + "}")
        else {
            Issue.record("1000 locations not decoded")
            return
        }
        #expect(thousand.map(\.device) == (0..<1000).map { "d\($0)" })
    }

    @Test func moreThanAThousandIsTooLarge() {
        let error = decodeError(#"{"op":"publish","locs":"# + locs(1001) + "}")
        #expect(
            error
                == ProtocolError(
                    .tooLarge, "locs holds 1001 locations; at most 1000 are allowed", failedOp: "publish"))
    }

    @Test func emptyOrMistypedLists() {
        for raw in ["[]", "null", "{}", #""x""#, "[1]", "[[]]"] {
            #expect(decodeError(#"{"op":"publish","locs":"# + raw + "}")?.code == .badRequest, "\(raw)")
        }
        #expect(decodeError(#"{"op":"publish","loc":null}"#)?.code == .badRequest)
    }

    @Test func exactlyOneOfLocAndLocs() {
        #expect(
            decodeError(#"{"op":"publish"}"#)?.message
                == "publish needs loc (one location) or locs (an array of 1 to 1000)")
        let both = #"{"op":"publish","loc":"# + locationJSON() + #","locs":"# + locs(1) + "}"
        #expect(decodeError(both)?.message == "publish takes loc or locs, not both")
    }

    @Test func allOrNothingNamesTheFirstBadIndex() {
        let items = [
            locationJSON(), locationJSON(), locationJSON(), locationJSON(["lat": "-91"]),
            locationJSON(["lon": "999"]),
        ]
        let error = decodeError(#"{"op":"publish","locs":["# + items.joined(separator: ",") + "]}")
        #expect(
            error
                == ProtocolError(
                    .badRequest, "locs[3].lat must be a number between -90 and 90", failedOp: "publish"))
        let notObject = decodeError(#"{"op":"publish","locs":["# + locationJSON() + ",7]}")
        #expect(notObject?.message == "locs[1] must be a location object")
    }

    @Test func ackFlag() {
        #expect(
            decoded(#"{"op":"publish","ack":true,"loc":"# + locationJSON() + "}")
                == .publish(
                    [Location(device: "veh-17", lat: 52.520008, lon: 13.404954, ts: 1_764_421_200_123)],
                    ack: true))
        guard
            case .publish(_, let ack)? = decoded(
                #"{"op":"publish","ack":false,"loc":"# + locationJSON() + "}")
        else {
            Issue.record("not decoded")
            return
        }
        #expect(ack == false)
        #expect(
            decodeError(#"{"op":"publish","ack":"yes","loc":"# + locationJSON() + "}")?.message
                == "ack must be true or false")
        #expect(
            decodeError(#"{"op":"publish","ack":1,"loc":"# + locationJSON() + "}")?.code == .badRequest)
    }

    @Test func pingAndAuthFields() {
        for raw in [#""1""#, "null", "true", "[1]", #"{"t":1}"#] {
            #expect(
                decodeError(#"{"op":"ping","t":"# + raw + "}")
                    == ProtocolError(.badRequest, "t must be a number", failedOp: "ping"), "\(raw)")
        }
        #expect(
            decodeError(#"{"op":"auth"}"#)
                == ProtocolError(
                    .badRequest, "token is missing: it must be a non-empty string", failedOp: "auth"))
        #expect(
            decodeError(#"{"op":"auth","token":""}"#)?.message == "token must be a non-empty string")
        #expect(decodeError(#"{"op":"auth","token":42}"#)?.code == .badRequest)
        #expect(decoded(#"{"op":"auth","token":"x"}"#) == .auth(token: "x"))
    }
}
