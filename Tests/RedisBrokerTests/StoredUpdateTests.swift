import LocstreamProtocol
import Testing

@testable import RedisBroker

@Suite("updates as Redis stores and carries them")
struct StoredUpdateTests {
    @Test("a template joined with a seq is the body EncodedLocation encodes, byte for byte")
    func templateJoins() throws {
        let locations = [
            Location(device: "veh-1", lat: 52.52, lon: 13.405, ts: 1_764_421_200_000),
            Location(
                device: "a:b.c_d-9", lat: -89.999, lon: -179.5, ts: 0, speed: 12.5, heading: 359, acc: 3,
                attrs: .object(["k": .string("v \"q\"")])),
        ]
        for location in locations {
            for seq: UInt64 in [1, 42, 9_007_199_254_740_991] {
                var stamped = location
                stamped.seq = seq
                let template = EncodedLocationTemplate(location)
                #expect(template.head + Array(String(seq).utf8) + template.tail == EncodedLocation(stamped).body)
            }
        }
    }

    @Test("a channel message gives back the update, its bytes unchanged, and the previous position")
    func messageRoundTrip() throws {
        let location = Location(device: "veh-1", lat: 52.52, lon: 13.405, ts: 7, seq: 9, speed: 3)
        let body = EncodedLocation(location).body
        let previous = PositionLine(Location(device: "veh-1", lat: 1e-7, lon: -0.1, ts: 0), cell: 123)
        let message = try StoredUpdate(payload: Array(previous.text.utf8) + [10] + body)
        #expect(message.update.body == body && message.update.location == location)
        #expect(message.position == previous)
        #expect(message.previousLocation?.lat == 1e-7 && message.previousLocation?.lon == -0.1)
        let first = try StoredUpdate(payload: [10] + body)
        #expect(first.position == nil && first.previousLocation == nil)
    }

    @Test("damaged payloads are refused with a reason", arguments: ["no newline", "1 2\n{}", "x y z\n\"device\":1}"])
    func refusesDamage(payload: String) {
        #expect(throws: RedisFailure.self) { try StoredUpdate(payload: Array(payload.utf8)) }
    }
}
