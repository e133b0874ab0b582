import Testing

@testable import LocstreamProtocol

/// One malformed or hostile frame and the exact code the decoder must answer (nil: it decodes).
struct HostileCase: CustomTestStringConvertible, Sendable {
    let name: String
    let input: [UInt8]
    let code: ErrorCode?

    init(_ name: String, _ text: String, _ code: ErrorCode?) {
        self.init(name, bytes(text), code)
    }

    init(_ name: String, _ input: [UInt8], _ code: ErrorCode?) {
        self.name = name
        self.input = input
        self.code = code
    }

    var testDescription: String { name }
}

private let validLocation = locationJSON()

let hostileCorpus: [HostileCase] = [
    // Not JSON at all.
    HostileCase("empty input", "", .badJSON),
    HostileCase("only whitespace", " \n\t ", .badJSON),
    HostileCase("plain text", "hello", .badJSON),
    HostileCase("truncated object", #"{"op":"ping""#, .badJSON),
    HostileCase("trailing comma in object", #"{"op":"ping",}"#, .badJSON),
    HostileCase(
        "trailing comma in array", #"{"op":"publish","locs":["# + validLocation + ",]}", .badJSON),
    HostileCase("single quotes", "{'op':'ping'}", .badJSON),
    HostileCase("bare key", #"{op:"ping"}"#, .badJSON),
    HostileCase("two objects in one frame", #"{"op":"ping"}{"op":"ping"}"#, .badJSON),
    HostileCase("comment", #"{"op":"ping"/* hi */}"#, .badJSON),
    HostileCase("NaN", #"{"op":"ping","t":NaN}"#, .badJSON),
    HostileCase("Infinity", #"{"op":"ping","t":Infinity}"#, .badJSON),
    HostileCase("-Infinity", #"{"op":"ping","t":-Infinity}"#, .badJSON),
    HostileCase("NaN latitude", publishFrame(["lat": "NaN"]), .badJSON),
    HostileCase("number overflowing Double", #"{"op":"ping","t":1e400}"#, .badJSON),
    HostileCase("negative overflow", publishFrame(["lon": "-1e400"]), .badJSON),
    HostileCase("leading zero", #"{"op":"ping","t":007}"#, .badJSON),
    HostileCase("hex number", #"{"op":"ping","t":0x1F}"#, .badJSON),
    HostileCase("60 000 open brackets", String(repeating: "[", count: 60_000), .badJSON),
    HostileCase(
        "65 nested arrays in an extension field",
        #"{"op":"ping","x":"# + String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
            + "}", .badJSON),
    HostileCase("deeply nested objects", String(repeating: #"{"op":"#, count: 10_000), .badJSON),
    HostileCase("raw newline inside a string", "{\"op\":\"auth\",\"token\":\"a\nb\"}", .badJSON),
    HostileCase("lone surrogate escape", #"{"op":"auth","token":"\ud83d"}"#, .badJSON),
    HostileCase("invalid escape", #"{"op":"auth","token":"\q"}"#, .badJSON),
    HostileCase(
        "invalid UTF-8 in a string", bytes(#"{"op":"auth","token":""#) + [0xC3, 0x28] + bytes(#""}"#),
        .badJSON),
    HostileCase(
        "overlong UTF-8", bytes(#"{"op":"auth","token":""#) + [0xC0, 0xAF] + bytes(#""}"#), .badJSON),
    HostileCase(
        "UTF-8 encoded surrogate", bytes(#"{"op":""#) + [0xED, 0xA0, 0x80] + bytes(#""}"#), .badJSON),
    HostileCase("stray 0xFF byte", [0xFF] + bytes(#"{"op":"ping"}"#), .badJSON),
    HostileCase(
        "UTF-16 text", Array(#"{"op":"ping"}"#.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
        .badJSON),
    HostileCase("NUL byte after the object", bytes(#"{"op":"ping"}"#) + [0], .badJSON),
    HostileCase("byte order mark", [0xEF, 0xBB, 0xBF] + bytes(#"{"op":"ping"}"#), .badJSON),
    // JSON, but not a request.
    HostileCase("null", "null", .badRequest),
    HostileCase("array", #"[{"op":"ping"}]"#, .badRequest),
    HostileCase("string", #""ping""#, .badRequest),
    HostileCase("number", "42", .badRequest),
    HostileCase("boolean", "true", .badRequest),
    HostileCase("empty object", "{}", .badRequest),
    HostileCase("op null", #"{"op":null}"#, .badRequest),
    HostileCase("op number", #"{"op":1}"#, .badRequest),
    HostileCase("op array", #"{"op":["ping"]}"#, .badRequest),
    HostileCase("op object", #"{"op":{"name":"ping"}}"#, .badRequest),
    HostileCase("unknown op", #"{"op":"teleport"}"#, .unknownOp),
    HostileCase("empty op", #"{"op":""}"#, .unknownOp),
    HostileCase("very long op", "{\"op\":\"\(String(repeating: "z", count: 100_000))\"}", .unknownOp),
    HostileCase("op with a NUL escape", #"{"op":"ping\u0000"}"#, .unknownOp),
    // Wrong types and ranges.
    HostileCase("subscribe without anything", #"{"op":"subscribe"}"#, .badRequest),
    HostileCase("sub null", #"{"op":"subscribe","sub":null,"devices":["d"]}"#, .badRequest),
    HostileCase("devices null", subscribeFrame(#""devices":null"#), .badRequest),
    HostileCase(
        "very long device id",
        subscribeFrame(#""devices":[""# + String(repeating: "d", count: 50_000) + #""]"#), .badRequest),
    HostileCase("1001 devices", subscribeFrame(#""devices":"# + deviceArray(1001)), .tooLarge),
    HostileCase(
        "huge radius overflow", subscribeFrame(#""area":{"center":[0,0],"radius_m":1e999}"#), .badJSON),
    HostileCase("ts far too large", publishFrame(["ts": "99999999999999999999999999"]), .badRequest),
    HostileCase("ts negative zero point five", publishFrame(["ts": "-0.5"]), .badRequest),
    HostileCase("lat as string", publishFrame(["lat": #""NaN""#]), .badRequest),
    HostileCase("lat huge", publishFrame(["lat": "1e308"]), .badRequest),
    HostileCase("locs null", #"{"op":"publish","locs":null}"#, .badRequest),
    HostileCase(
        "attrs over 512 bytes",
        publishFrame(["attrs": #"{"a":""# + String(repeating: "é", count: 300) + #""}"#]), .badRequest),
    HostileCase("ping with a string t", #"{"op":"ping","t":"now"}"#, .badRequest),
    HostileCase("auth with null token", #"{"op":"auth","token":null}"#, .badRequest),
    // Valid despite looking odd.
    HostileCase("unknown fields", #"{"op":"ping","zzz":{"deep":[1,2,{"x":null}]},"v":2}"#, nil),
    HostileCase("whitespace everywhere", " \r\n\t{ \"op\" :\t\"ping\" , \"t\" : 1 }\n", nil),
    HostileCase("huge integer t", #"{"op":"ping","t":123456789012345678901234567890}"#, nil),
    HostileCase(
        "64 levels of nesting",
        #"{"op":"ping","x":"# + String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
            + "}", nil),
]

@Suite("Hostile and malformed input")
struct HostileInputTests {
    @Test(arguments: hostileCorpus)
    func answersWithTheExactCode(hostile: HostileCase) {
        #expect(decodeError(hostile.input)?.code == hostile.code)
    }

    @Test func corpusCoversEveryDecoderCode() {
        #expect(hostileCorpus.count >= 40)
        let codes = Set(hostileCorpus.compactMap(\.code))
        #expect(codes == [.badJSON, .badRequest, .unknownOp, .tooLarge])
    }

    @Test func theErrorMessageOfAHugeOpIsShort() throws {
        let error = try #require(decodeError("{\"op\":\"\(String(repeating: "z", count: 100_000))\"}"))
        #expect(error.message.count < 200)
        #expect(error.failedOp?.count == 100_000)
    }
}
