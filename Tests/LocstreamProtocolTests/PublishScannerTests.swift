import Testing

@testable import LocstreamProtocol

/// The publish fast path must answer exactly as the tree decoder does, message for
/// message and error for error, and must be the path the usual publish takes.
@Suite("publish fast path")
struct PublishScannerTests {
    /// A location the way `pub` and the apps write one.
    static let usual = #"{"device":"veh-17","lat":52.520008,"lon":13.404954,"ts":1764421200123,"attrs":{"tx":17}}"#

    /// Publishes of the shapes apps send, and near misses of each.
    static let texts: [String] = {
        let full = #"{"device":"a-1","lat":-90,"lon":180.0,"ts":0,"speed":0,"heading":359.9,"acc":1e1,"attrs":{}}"#
        var texts = [
            #"{"op":"publish","locs":[\#(usual)]}"#,
            #"{"op":"publish","loc":\#(usual)}"#,
            #"{"op":"publish","loc":\#(full),"ack":true}"#,
            #" { "locs" : [ \#(usual) , \#(full) ] , "ack" : false , "op" : "publish" } "#,
            #"{"op":"publish","locs":[\#(usual)],"extra":{"deep":[1,2,{"x":null}]},"seq":5}"#,
            #"{"op":"publish","loc":{"d\u0065vice":"veh-1","lat":1,"lon":2,"ts":3,"seq":99,"note":"x"}}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lat":1,"lon":2,"ts":3,"device":"veh-2"}}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lat":1,"lon":2,"ts":3,"lat":4}}"#,
            #"{"op":"publish","loc":\#(usual),"locs":[\#(usual)]}"#,
            #"{"op":"publish","loc":\#(usual),"loc":\#(full)}"#,
            #"{"op":"publish","op":"ping","loc":\#(usual)}"#,
            #"{"op":"ping","loc":\#(usual)}"#,
            #"{"op":"publish","locs":[]}"#,
            #"{"op":"publish","locs":[\#(usual),]}"#,
            #"{"op":"publish","locs":{}}"#,
            #"{"op":"publish"}"#,
            #"{"op":"publish","loc":\#(usual),"ack":"yes"}"#,
            #"{"op":"publish","loc":\#(usual),"ack":true,"ack":false}"#,
            #"{"op":"publish","loc":{"device":"veh 1","lat":1,"lon":2,"ts":3}}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lat":90.0000001,"lon":2,"ts":3}}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lat":1,"lon":-180.5,"ts":3}}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lat":1,"lon":2,"ts":3.5}}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lat":1,"lon":2,"ts":1e3}}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lat":1,"lon":2,"ts":-1}}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lat":1,"lon":2,"ts":3,"speed":null}}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lat":1,"lon":2,"ts":3,"speed":-0.1}}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lat":1,"lon":2,"ts":3,"heading":360}}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lat":"1","lon":2,"ts":3}}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lon":2,"ts":3}}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lat":1,"lon":2,"ts":3,"attrs":[1]}}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lat":1,"lon":2,"ts":3,"attrs":null}}"#,
            #"{"op":"publish","loc":[]}"#,
            #"{"op":"publish","loc":\#(usual)} x"#,
            #"{"op":"publish","loc":\#(usual)}}"#,
            #"[{"op":"publish","loc":\#(usual)}]"#,
            #"{"op":"publish","loc":\#(usual),}"#,
            #"{"op":"publish","loc":{"device":"veh-1","lat":01,"lon":2,"ts":3}}"#,
            #"{"op":"subscribe","sub":"s","devices":["a"]}"#,
        ]
        // attrs whose text passes the size limit but whose encoding does not, and the reverse.
        let padded = "{" + String(repeating: " ", count: 600) + #""k":"v"}"#
        let long = #"{"k":""# + String(repeating: "v", count: ProtocolLimits.maxAttrsBytes - 8) + #""}"#
        let tooLong = #"{"k":""# + String(repeating: "v", count: ProtocolLimits.maxAttrsBytes - 7) + #""}"#
        let escaped = #"{"k":""# + String(repeating: #"\u00e9"#, count: 100) + #""}"#
        let repeated = "{" + String(repeating: #""k":1,"#, count: 120) + #""k":2}"#
        for attrs in [padded, long, tooLong, escaped, repeated] {
            texts.append(#"{"op":"publish","loc":{"device":"veh-1","lat":1,"lon":2,"ts":3,"attrs":\#(attrs)}}"#)
        }
        // attrs nested up to and past the depth limit, inside loc and inside locs.
        for depth in ProtocolLimits.maxJSONDepth - 4...ProtocolLimits.maxJSONDepth {
            let attrs = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
            let location = #"{"device":"veh-1","lat":1,"lon":2,"ts":3,"attrs":\#(attrs)}"#
            texts.append(#"{"op":"publish","loc":\#(location)}"#)
            texts.append(#"{"op":"publish","locs":[\#(location)]}"#)
        }
        let batch = { (count: Int) in
            #"{"op":"publish","locs":["# + Array(repeating: usual, count: count).joined(separator: ",") + "]}"
        }
        texts += [batch(ProtocolLimits.maxLocationsPerPublish), batch(ProtocolLimits.maxLocationsPerPublish + 1)]
        return texts
    }()

    /// What `decode` answers: the message, or the error.
    static func answer(_ decode: () throws(ProtocolError) -> ClientMessage) -> Result<ClientMessage, ProtocolError> {
        do throws(ProtocolError) { return .success(try decode()) } catch { return .failure(error) }
    }

    static func expectSameAnswer(_ input: [UInt8], _ comment: Comment? = nil) {
        let fast = answer { () throws(ProtocolError) in try ClientMessage.decode(input) }
        let tree = answer { () throws(ProtocolError) in try ClientMessage.decodeTree(input) }
        #expect(fast == tree, comment ?? Comment(rawValue: String(decoding: input.prefix(200), as: UTF8.self)))
    }

    @Test("the usual publishes take the fast path")
    func usualShapesAreScanned() throws {
        let scanned = try #require(PublishScanner.decode(bytes(Self.texts[0])))
        #expect(scanned == (try ClientMessage.decodeTree(bytes(Self.texts[0]))))
        for index in [1, 2, 3, 4, 5] {
            #expect(PublishScanner.decode(bytes(Self.texts[index])) != nil, "text \(index)")
        }
        let thousand = Self.texts[Self.texts.count - 2]
        #expect(PublishScanner.decode(bytes(thousand)) != nil)
    }

    @Test("each crafted text gets the tree decoder's answer, message or error")
    func craftedTexts() {
        for text in Self.texts { Self.expectSameAnswer(bytes(text)) }
    }

    @Test("the hostile corpus gets the tree decoder's answer")
    func hostileCorpusAgrees() {
        for hostile in hostileCorpus { Self.expectSameAnswer(hostile.input, Comment(rawValue: hostile.name)) }
    }

    @Test("every prefix and 20,000 byte mutations of publishes get the tree decoder's answer")
    func mutations() {
        let seeds = Self.texts.prefix(8).map(bytes)
        for seed in seeds {
            for end in 0..<seed.count { Self.expectSameAnswer(Array(seed[..<end])) }
        }
        let alphabet = Array(#"{}[]:,"\ 0123456789.-+eE tfnul"#.utf8) + [0x00, 0x1F, 0xC3, 0xA9, 0xFF]
        var random = SplitMix64(seed: 16)
        for round in 0..<20_000 {
            var input = seeds[round % seeds.count]
            for _ in 0...Int.random(in: 0...2, using: &random) {
                let at = Int.random(in: input.indices, using: &random)
                let byte = alphabet.randomElement(using: &random) ?? 0
                switch Int.random(in: 0...2, using: &random) {
                case 0: input[at] = byte
                case 1: input.insert(byte, at: at)
                default: input.remove(at: at)
                }
            }
            Self.expectSameAnswer(input)
        }
    }
}
