import Testing

@testable import LocstreamProtocol

@Suite("Subscribe field rules")
struct SubscribeRuleTests {
    private func request(_ text: String) -> SubscribeRequest? {
        guard case .subscribe(let request)? = decoded(text) else { return nil }
        return request
    }

    private func code(_ text: String) -> ErrorCode? { decodeError(text)?.code }

    @Test(
        "sub is 1 to 128 characters, counted as characters",
        arguments: [
            ("\"A\"", true), ("\"\(String(repeating: "s", count: 128))\"", true),
            ("\"\(String(repeating: "s", count: 129))\"", false), (#""""#, false),
            ("\"\(String(repeating: "é", count: 128))\"", true),  // 256 bytes, 128 characters
            ("\"\(String(repeating: "é", count: 129))\"", false), (#""any chars: ✓ / \" {}""#, true),
            ("42", false), ("null", false), ("[\"A\"]", false),
        ])
    func sub(raw: String, accepted: Bool) {
        let text = #"{"op":"subscribe","devices":["d"],"sub":"# + raw + "}"
        #expect(code(text) == (accepted ? nil : .badRequest))
    }

    @Test func subIsRequired() {
        #expect(
            decodeError(#"{"op":"subscribe","devices":["d"]}"#)?.message
                == "sub is missing: it must be a string of 1 to 128 characters")
    }

    @Test func deviceListBounds() {
        #expect(request(subscribeFrame(#""devices":"# + deviceArray(1)))?.target == .devices(["d0"]))
        #expect(
            request(subscribeFrame(#""devices":"# + deviceArray(1000)))?.target
                == .devices((0..<1000).map { "d\($0)" }))
        let tooMany = decodeError(subscribeFrame(#""devices":"# + deviceArray(1001)))
        #expect(tooMany?.code == .tooLarge)
        #expect(tooMany?.failedOp == "subscribe")
        #expect(tooMany?.message == "devices lists 1001 device ids; at most 1000 are allowed")
        #expect(
            decodeError(subscribeFrame(#""devices":[]"#))?.message
                == "devices must be an array of 1 to 1000 device ids")
        #expect(code(subscribeFrame(#""devices":"veh-17""#)) == .badRequest)
        #expect(code(subscribeFrame(#""devices":null"#)) == .badRequest)
        #expect(code(subscribeFrame(#""devices":[17]"#)) == .badRequest)
        #expect(
            decodeError(subscribeFrame(#""devices":["a","b","c","bad id"]"#))?.message
                == "devices[3] must be a device id: 1 to 128 characters of A-Z a-z 0-9 . _ : -")
    }

    @Test func duplicateDevicesAreDroppedKeepingOrder() {
        #expect(
            request(subscribeFrame(#""devices":["b","a","b","c","a"]"#))?.target
                == .devices(["b", "a", "c"]))
    }

    @Test func exactlyOneTarget() {
        #expect(code(#"{"op":"subscribe","sub":"A"}"#) == .badRequest)
        #expect(code(subscribeFrame(#""devices":["d"],"area":{"bbox":[0,0,1,1]}"#)) == .badRequest)
    }

    @Test(
        "bbox rules",
        arguments: [
            ("[13.3,52.4,13.5,52.6]", Area.bbox(minLon: 13.3, minLat: 52.4, maxLon: 13.5, maxLat: 52.6)),
            // Crossing the antimeridian:
            ("[170,-20,-170,20]", .bbox(minLon: 170, minLat: -20, maxLon: -170, maxLat: 20)),
            ("[-180,-90,180,90]", .bbox(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90)),
            ("[0,0,1,0]", nil), ("[0,1,1,0]", nil),  // minLat must be < maxLat
            ("[5,0,5,1]", nil),  // minLon == maxLon is degenerate
            ("[-180.000001,0,1,1]", nil), ("[0,0,180.000001,1]", nil),
            ("[0,-90.000001,1,1]", nil), ("[0,0,1,90.000001]", nil),
            ("[0,0,1]", nil), ("[0,0,1,1,1]", nil), (#"["0",0,1,1]"#, nil), ("{}", nil), ("null", nil),
        ] as [(String, Area?)])
    func bbox(raw: String, expected: Area?) {
        let text = subscribeFrame(#""area":{"bbox":"# + raw + "}")
        if let expected {
            #expect(request(text)?.target == .area(expected))
        } else {
            #expect(code(text) == .badRequest)
        }
    }

    @Test(
        "circle rules",
        arguments: [
            (
                #""center":[13.4,52.5],"radius_m":1000"#,
                Area.circle(lon: 13.4, lat: 52.5, radiusMeters: 1000)
            ),
            (#""center":[-180,-90],"radius_m":0.001"#, .circle(lon: -180, lat: -90, radiusMeters: 0.001)),
            (#""center":[180,90],"radius_m":5"#, .circle(lon: 180, lat: 90, radiusMeters: 5)),
            (#""center":[13.4,52.5],"radius_m":0"#, nil), (#""center":[13.4,52.5],"radius_m":-1"#, nil),
            (#""center":[13.4,52.5],"radius_m":"5""#, nil), (#""center":[13.4,52.5]"#, nil),
            (#""radius_m":5"#, nil), (#""center":[180.5,0],"radius_m":5"#, nil),
            (#""center":[0,90.5],"radius_m":5"#, nil), (#""center":[0],"radius_m":5"#, nil),
            (#""center":[0,0,0],"radius_m":5"#, nil), (#""center":[0,0],"radius_m":null"#, nil),
            (#""center":[0,0],"radius_m":5,"bbox":[0,0,1,1]"#, nil),
        ] as [(String, Area?)])
    func circle(members: String, expected: Area?) {
        let text = subscribeFrame(#""area":{"# + members + "}")
        if let expected {
            #expect(request(text)?.target == .area(expected))
        } else {
            #expect(code(text) == .badRequest)
        }
    }

    @Test func areaMustBeAnObject() {
        #expect(code(subscribeFrame(#""area":[0,0,1,1]"#)) == .badRequest)
        #expect(code(subscribeFrame(#""area":{}"#)) == .badRequest)
        #expect(code(subscribeFrame(#""area":null"#)) == .badRequest)
    }

    @Test func snapshotFlag() {
        #expect(request(subscribeFrame(#""devices":["d"]"#))?.snapshot == true)
        #expect(request(subscribeFrame(#""devices":["d"],"snapshot":false"#))?.snapshot == false)
        #expect(request(subscribeFrame(#""devices":["d"],"snapshot":true"#))?.snapshot == true)
        #expect(code(subscribeFrame(#""devices":["d"],"snapshot":"no""#)) == .badRequest)
        #expect(code(subscribeFrame(#""devices":["d"],"snapshot":0"#)) == .badRequest)
    }

    @Test(
        "since maps device ids to non-negative integers",
        arguments: [
            (#"{"d":0}"#, ["d": 0]), (#"{"d":42,"e":9223372036854775807}"#, ["d": 42, "e": .max / 2]),
            ("{}", [:]), (#"{"d":-1}"#, nil), (#"{"d":1.5}"#, nil), (#"{"d":"42"}"#, nil),
            (#"{"bad id":1}"#, nil),
            (#"[["d",1]]"#, nil), ("null", nil),
        ] as [(String, [String: UInt64]?)])
    func since(raw: String, expected: [String: UInt64]?) {
        let text = subscribeFrame(#""devices":["d"],"since":"# + raw)
        if let expected {
            #expect(request(text)?.since == expected)
        } else {
            #expect(code(text) == .badRequest)
        }
    }

    @Test func thinning() {
        let both = request(subscribeFrame(#""devices":["d"],"min_interval_ms":0,"min_distance_m":0"#))
        #expect(both?.minIntervalMs == 0)
        #expect(both?.minDistanceMeters == 0)
        #expect(
            request(subscribeFrame(#""devices":["d"],"min_interval_ms":1000"#))?.minIntervalMs == 1000)
        #expect(
            request(subscribeFrame(#""devices":["d"],"min_distance_m":2.5"#))?.minDistanceMeters == 2.5)
        for bad in [
            #""min_interval_ms":-1"#, #""min_interval_ms":1.5"#, #""min_interval_ms":"1000""#,
            #""min_distance_m":-0.1"#, #""min_distance_m":"25""#, #""min_distance_m":null"#,
        ] {
            #expect(code(subscribeFrame(#""devices":["d"],"# + bad)) == .badRequest, "\(bad)")
        }
    }
}
