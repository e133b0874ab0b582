import Testing

@testable import LocstreamProtocol

@Suite("Decoding each client op")
struct ClientMessageDecodingTests {
    @Test func subscribeToDevicesWithDefaults() {
        let message = decoded(#"{"op":"subscribe","sub":"A","devices":["veh-17","veh-18"]}"#)
        #expect(
            message
                == .subscribe(
                    SubscribeRequest(
                        sub: "A", target: .devices(["veh-17", "veh-18"]), snapshot: true, since: [:],
                        minIntervalMs: nil, minDistanceMeters: nil)))
    }

    @Test func subscribeWithEveryField() {
        let message = decoded(
            #"""
            {"op":"subscribe","sub":"dispatch-1","area":{"center":[13.4,52.5],"radius_m":2500},
             "snapshot":false,"since":{"veh-17":41,"veh-18":0},"min_interval_ms":1000,"min_distance_m":25.5}
            """#)
        #expect(
            message
                == .subscribe(
                    SubscribeRequest(
                        sub: "dispatch-1", target: .area(.circle(lon: 13.4, lat: 52.5, radiusMeters: 2500)),
                        snapshot: false, since: ["veh-17": 41, "veh-18": 0], minIntervalMs: 1000,
                        minDistanceMeters: 25.5)))
    }

    @Test func unsubscribe() {
        #expect(decoded(#"{"op":"unsubscribe"}"#) == .unsubscribe)
    }

    @Test func publishOneLocationWithEveryField() {
        let message = decoded(
            #"""
            {"op":"publish","ack":true,"loc":{"device":"veh-17","lat":52.520008,"lon":13.404954,
             "ts":1764421200123,"speed":8.3,"heading":271.0,"acc":4.5,"attrs":{"driver":"Ana","battery":87}}}
            """#)
        let expected = Location(
            device: "veh-17", lat: 52.520008, lon: 13.404954, ts: 1_764_421_200_123, seq: 0, speed: 8.3,
            heading: 271, acc: 4.5, attrs: .object(["driver": .string("Ana"), "battery": .integer(87)]))
        #expect(message == .publish([expected], ack: true))
    }

    @Test func publishSeveralLocationsWithoutAck() {
        let message = decoded(
            #"{"op":"publish","locs":["# + locationJSON() + "," + locationJSON(["device": #""veh-18""#])
                + "]}")
        guard case .publish(let locations, let ack)? = message else {
            Issue.record("not a publish: \(String(describing: message))")
            return
        }
        #expect(locations.map(\.device) == ["veh-17", "veh-18"])
        #expect(ack == false)
        #expect(locations.allSatisfy { $0.seq == 0 && $0.speed == nil && $0.attrs == nil })
    }

    @Test(
        "ping echoes t exactly",
        arguments: [
            (#"{"op":"ping"}"#, nil as JSONValue?),
            (#"{"op":"ping","t":1764421200123}"#, .integer(1_764_421_200_123)),
            (#"{"op":"ping","t":-5}"#, .integer(-5)),
            (#"{"op":"ping","t":0.25}"#, .number(0.25)),
            (
                #"{"op":"ping","t":12345678901234567890123}"#,
                .number(JSONNumber(text: "12345678901234567890123", value: 12_345_678_901_234_567_741_440))
            ),
            (#"{"op":"ping","t":-0}"#, .number(JSONNumber(text: "-0", value: -0.0))),
        ])
    func ping(text: String, t: JSONValue?) {
        #expect(decoded(text) == .ping(t: t))
    }

    @Test func auth() {
        #expect(
            decoded(#"{"op":"auth","token":"eyJhbGciOiJIUzI1NiJ9.e30.sig"}"#)
                == .auth(token: "eyJhbGciOiJIUzI1NiJ9.e30.sig"))
    }

    @Test func unknownFieldsAreIgnored() {
        #expect(
            decoded(#"{"op":"ping","v":2,"ext":{"deep":[1,{"x":null}]},"t":1}"#) == .ping(t: .integer(1)))
        #expect(decoded(#"{"op":"unsubscribe","sub":5}"#) == .unsubscribe)
        #expect(decoded(publishFrame(["future": "[true]", "seq": "99"])) != nil)
    }

    @Test func publisherSeqIsIgnored() {
        #expect(
            decoded(publishFrame(["seq": "99"]))
                == .publish(
                    [Location(device: "veh-17", lat: 52.520008, lon: 13.404954, ts: 1_764_421_200_123)],
                    ack: false))
        #expect(decodeError(publishFrame(["seq": #""not a number""#])) == nil)
    }

    @Test func opMayBeEscaped() {
        #expect(decoded(#"{"op":"p\u0069ng"}"#) == .ping(t: nil))
    }

    @Test func opNamesTheFailedRequest() {
        #expect(decodeError(#"{"op":"auth","token":""}"#)?.failedOp == "auth")
        #expect(decodeError(#"{"op":"subscribe","sub":""}"#)?.failedOp == "subscribe")
        #expect(decodeError(#"{"op":"publish"}"#)?.failedOp == "publish")
        #expect(decodeError(#"{"op":"ping","t":"x"}"#)?.failedOp == "ping")
        #expect(
            decodeError(#"{"op":"teleport"}"#)
                == ProtocolError(
                    .unknownOp,
                    #"unknown op "teleport"; protocol v1 has subscribe, unsubscribe, publish, ping and auth"#,
                    failedOp: "teleport"))
        #expect(decodeError(#"{"op":5}"#) == ProtocolError(.badRequest, "op must be a string"))
        #expect(decodeError("[]")?.failedOp == nil)
        #expect(decodeError("{")?.failedOp == nil)
    }

    @Test func opIsCaseSensitive() {
        #expect(decodeError(#"{"op":"Ping"}"#)?.code == .unknownOp)
    }

    @Test func opNameProperty() {
        let messages: [ClientMessage] = [
            .subscribe(SubscribeRequest(sub: "A", target: .devices(["d"]))), .unsubscribe,
            .publish([], ack: false),
            .ping(t: nil), .auth(token: "t"),
        ]
        #expect(messages.map(\.op) == ["subscribe", "unsubscribe", "publish", "ping", "auth"])
    }
}
