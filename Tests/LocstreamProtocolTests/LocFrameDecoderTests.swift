import Testing

@testable import LocstreamProtocol

/// The fast path of `ServerMessage.decode` for `loc` frames against the general decoder:
/// the same message, bit for bit, or the same error, for frames the server writes, for
/// frames it does not, and for random damage to both.
@Suite("loc frame fast path")
struct LocFrameDecoderTests {
    /// Both decoders' outcome for `text`; the encoded message stands for it, so that
    /// -0.0 and 0.0 differ.
    private static func outcomes(_ bytes: [UInt8]) -> (
        fast: Result<[UInt8], ProtocolError>, general: Result<[UInt8], ProtocolError>
    ) {
        let fast = Result { () throws(ProtocolError) in try ServerMessage.decode(bytes).encoded() }
        let general = Result { () throws(ProtocolError) in try ServerMessage.decodeGeneral(bytes).encoded() }
        return (fast, general)
    }

    private static func takesFastPath(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBufferPointer { LocFrameDecoder.decode($0) } != nil
    }

    @Test("frames as the server writes them take the fast path and decode as the general decoder does")
    func serverFrames() throws {
        var random = SplitMix64(seed: 17)
        for round in 0..<2000 {
            let unit = { (random: inout SplitMix64) in Double(random.next() >> 11) / Double(1 << 53) }
            var location = Location(
                device: "dev-\(random.next() % 100_000)", lat: unit(&random) * 180 - 90, lon: unit(&random) * 360 - 180,
                ts: Int64(random.next() % (1 << 53)), seq: random.next() % (1 << 40))
            if round % 3 == 0 { location.lat = (location.lat * 1e6).rounded() / 1e6 }
            if round % 4 == 0 { location.speed = Double(random.next() % 1000) / 10 }
            if round % 5 == 0 { location.heading = Double(random.next() % 3600) / 10 }
            if round % 7 == 0 { location.acc = unit(&random) * 50 }
            if round % 11 == 0 { location.lon = Double(Int(location.lon)) }
            let message = ServerMessage.loc(sub: "s\(round)", location: location)
            let bytes = message.encoded()
            let (fast, general) = Self.outcomes(bytes)
            #expect(fast == general, "\(String(decoding: bytes, as: UTF8.self))")
            #expect(try ServerMessage.decode(bytes) == message)
            #expect(
                Self.takesFastPath(String(decoding: bytes, as: UTF8.self)), "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test(
        "frames the fast path reads",
        arguments: [
            #"{"op":"loc","sub":"s1","device":"a","lat":52.520008,"lon":13.404954,"ts":1764421200123,"seq":42,"speed":8.3,"online":true}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":-0,"lon":-0.0,"ts":0,"seq":0,"speed":-0.0,"heading":360,"acc":0}"#,
            #"{"sub":"s1","device":"a","lat":90,"lon":-180,"ts":9007199254740992,"seq":9223372036854775807,"op":"loc"}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":0.1,"lon":0.3000000000000000,"ts":1,"seq":1,"x":null,"y":"z","w":false}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1.797693134862315,"lon":9.007199254740992,"ts":1,"seq":1}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":0.12345678901234567890,"lon":-0.00000000000000000000000001,"ts":3,"seq":4}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":54.203406828831106,"lon":-166.58997408132154,"ts":3,"seq":4,"speed":12345678901234567890123}"#,
        ])
    func fastFrames(text: String) {
        let (fast, general) = Self.outcomes(Array(text.utf8))
        #expect(fast == general)
        #expect(Self.takesFastPath(text))
    }

    @Test(
        "frames left to the general decoder, which gives the same outcome",
        arguments: [
            #"{"op":"loc", "sub":"s1","device":"a","lat":1,"lon":2,"ts":3,"seq":4}"#,
            #"{"op":"loc","sub":"s\u0031","device":"a","lat":1,"lon":2,"ts":3,"seq":4}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1e1,"lon":2,"ts":3,"seq":4}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1,"lon":2,"ts":3e0,"seq":4}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1,"lon":2,"ts":3.0,"seq":4}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1,"lon":2,"ts":3,"seq":-0}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":01,"lon":2,"ts":3,"seq":4}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1.,"lon":2,"ts":3,"seq":4}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":91,"lon":2,"ts":3,"seq":4}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1,"lon":2,"ts":9007199254740993,"seq":4}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1,"lon":2,"ts":3,"seq":9223372036854775808}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1,"lon":2,"ts":3,"seq":4,"seq":5}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1,"lon":2,"ts":3,"seq":4,"attrs":{"k":1}}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1,"lon":2,"ts":3,"seq":4,"attrs":1}"#,
            #"{"op":"loc","sub":"s1","device":"a b","lat":1,"lon":2,"ts":3,"seq":4}"#,
            #"{"op":"loc","sub":"","device":"a","lat":1,"lon":2,"ts":3,"seq":4}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1,"lon":2,"ts":3}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1,"lon":2,"ts":3,"seq":4} "#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1,"lon":2,"ts":3,"seq":4,"speed":null}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1,"lon":2,"ts":3,"seq":4,"heading":360.5}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1,"lon":2,"ts":3,"seq":4,"x":[1]}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":9007199254740993,"lon":2,"ts":3,"seq":4}"#,
            #"{"op":"leave","sub":"s1","device":"a"}"#,
            #"{"op":"subscribed","sub":"s1","restarted":false,"snapshot":0}"#,
            #"{"op":"loc","sub":"s1","device":"a","lat":1,"lon":2,"ts":3,"seq":4,}"#,
        ])
    func generalFrames(text: String) {
        let (fast, general) = Self.outcomes(Array(text.utf8))
        #expect(fast == general)
        #expect(!Self.takesFastPath(text))
    }

    @Test("damaged frames: the fast path and the general decoder agree on every one")
    func damage() {
        var random = SplitMix64(seed: 4242)
        let seeds = [
            #"{"op":"loc","sub":"s1","device":"veh-17","lat":52.520008,"lon":13.404954,"ts":1764421200123,"seq":42,"speed":8.3,"heading":271.5,"acc":4.5}"#,
            #"{"op":"loc","sub":"map-1","device":"a","lat":-0.5,"lon":180,"ts":0,"seq":0,"online":false}"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"0123456789-.,:{}[]"e\ tfnul"#.utf8) + [0x80, 0x1F]
        for _ in 0..<20_000 {
            var bytes = seeds[Int(random.next() % UInt64(seeds.count))]
            for _ in 0...(random.next() % 3) {
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[at] = alphabet[Int(random.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: at)
                }
                if bytes.isEmpty { break }
            }
            let (fast, general) = Self.outcomes(bytes)
            #expect(fast == general, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }
}
