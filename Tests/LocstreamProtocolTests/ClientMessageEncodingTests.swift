import Testing

@testable import LocstreamProtocol

@Suite("Client frames, as the command-line client sends them")
struct ClientMessageEncodingTests {
    @Test(
        "decode(encoded()) round-trips",
        arguments: [
            ClientMessage.subscribe(SubscribeRequest(sub: "A", target: .devices(["veh-17", "veh-18"]))),
            .subscribe(
                SubscribeRequest(
                    sub: "wrap ✓", target: .area(.bbox(minLon: 170, minLat: -10, maxLon: -170, maxLat: 10)),
                    snapshot: false,
                    since: ["veh-17": 41, "b": UInt64(Int64.max)], minIntervalMs: 500, minDistanceMeters: 2.5)
            ),
            .subscribe(
                SubscribeRequest(sub: "C", target: .area(.circle(lon: 13.4, lat: 52.5, radiusMeters: 1500)))
            ),
            .unsubscribe,
            .publish([Location(device: "veh-17", lat: 1, lon: 2, ts: 3)], ack: false),
            .publish(
                [
                    Location(
                        device: "a", lat: -90, lon: 180, ts: 1 << 53, speed: 0, heading: 360, acc: 0,
                        attrs: .object([:])),
                    Location(device: "b", lat: 0.1, lon: -0.1, ts: 0, attrs: .object(["x": .string("y")])),
                ], ack: true),
            .ping(t: nil), .ping(t: .integer(17)), .ping(t: .number(-2.5)),
            .auth(token: "a.b.c"),
        ])
    func roundTrip(message: ClientMessage) throws {
        #expect(try ClientMessage.decode(message.encoded()) == message)
    }

    @Test func exactBytes() {
        let subscribe = ClientMessage.subscribe(
            SubscribeRequest(
                sub: "A", target: .area(.circle(lon: 13.4, lat: 52.5, radiusMeters: 100)), since: ["d": 3]))
        #expect(
            String(decoding: subscribe.encoded(), as: UTF8.self)
                == #"{"op":"subscribe","sub":"A","area":{"center":[13.4,52.5],"radius_m":100.0},"snapshot":true,"since":{"d":3}}"#
        )
        let publish = ClientMessage.publish(
            [Location(device: "d", lat: 1.5, lon: 2, ts: 3, seq: 9)], ack: true)
        #expect(
            String(decoding: publish.encoded(), as: UTF8.self)
                == #"{"op":"publish","locs":[{"device":"d","lat":1.5,"lon":2.0,"ts":3}],"ack":true}"#)
    }
}
