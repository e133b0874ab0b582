import Testing

@testable import LocstreamProtocol

@Suite("POST /v1/locations body")
struct LocationBatchTests {
    private func error(_ text: String) -> ProtocolError? {
        do {
            _ = try LocationBatch.decode(bytes(text))
            return nil
        } catch {
            return error
        }
    }

    @Test func decodesAnArray() throws {
        let batch = try LocationBatch.decode(
            bytes("[" + locationJSON() + "," + locationJSON(["device": #""b""#, "seq": "5"]) + "]"))
        #expect(batch.map(\.device) == ["veh-17", "b"])
        #expect(batch.map(\.seq) == [0, 0])
    }

    @Test func namesTheFirstBadIndex() {
        let text =
            "["
            + [
                locationJSON(), locationJSON(), locationJSON(["heading": "361"]),
                locationJSON(["lat": "100"]),
            ].joined(separator: ",") + "]"
        #expect(
            error(text) == ProtocolError(.badRequest, "[2].heading must be a number between 0 and 360"))
    }

    @Test func limitsAndShapes() {
        let thousand = "[" + Array(repeating: locationJSON(), count: 1000).joined(separator: ",") + "]"
        #expect(error(thousand) == nil)
        let tooMany = "[" + Array(repeating: locationJSON(), count: 1001).joined(separator: ",") + "]"
        #expect(
            error(tooMany)
                == ProtocolError(.tooLarge, "the body holds 1001 locations; at most 1000 are allowed"))
        #expect(
            error("[]") == ProtocolError(.badRequest, "the body must be an array of 1 to 1000 locations"))
        #expect(error(locationJSON())?.code == .badRequest)
        #expect(error("[" + locationJSON())?.code == .badJSON)
        #expect(error("[1]")?.message == "[0] must be a location object")
    }
}
