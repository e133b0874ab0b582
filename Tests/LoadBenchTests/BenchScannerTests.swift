import LocstreamProtocol
import Testing

@testable import LoadBench

/// The loc frame the server would send for `location` on subscription `sub`.
private func serverFrame(sub: String, _ location: Location) -> [UInt8] {
    LocationFrame.prefix(sub: sub) + EncodedLocation(location).body
}

/// The `ScannedLoc` of `text`, or nil when it is not a readable loc frame.
private func scanLoc(_ text: String) -> ScannedLoc? {
    guard case .loc(let loc) = LocFrameScanner.scan(Array(text.utf8)) else { return nil }
    return loc
}

/// The bytes of `range` in `text`, as a string.
private func slice(_ text: [UInt8], _ range: Range<Int>) -> String { String(decoding: text[range], as: UTF8.self) }

/// The byte scanner the bench reads `loc` frames with.
@Suite("bench frame scanner")
struct BenchScannerTests {
    @Test("reads sub, device, seq and ts from the server's own encoding")
    func serverEncoding() {
        let location = Location(
            device: "veh-17", lat: 52.520008, lon: 13.404954, ts: 1_764_421_200_123, seq: 42, speed: 8.3,
            heading: 271, acc: 4.5, attrs: .object(["seq": .integer(7), "ts": .string("x")]))
        let frame = serverFrame(sub: "fleet", location)
        guard case .loc(let loc) = LocFrameScanner.scan(frame) else {
            Issue.record("not scanned as a loc frame")
            return
        }
        #expect(slice(frame, loc.sub) == "fleet")
        #expect(slice(frame, loc.device) == "veh-17")
        #expect(loc.seq == 42)
        #expect(loc.ts == 1_764_421_200_123)
        let device = Array("veh-17".utf8)
        #expect(loc.deviceKey == device.withUnsafeBufferPointer { LocFrameScanner.key(of: 0..<6, in: $0) })
    }

    @Test("a seq or ts nested in attrs before the real ones is skipped")
    func nestedFieldsAreSkipped() {
        let text =
            #"{"op":"loc","attrs":{"seq":1,"ts":2,"list":[{"seq":3},"}"]},"sub":"A","device":"d","ts":10,"seq":99}"#
        #expect(scanLoc(text)?.seq == 99)
        #expect(scanLoc(text)?.ts == 10)
    }

    @Test("whitespace, member order and escapes in sub")
    func layout() {
        let text = "{ \"seq\" : 5 ,\n\t\"ts\":6, \"device\" : \"x.y\", \"sub\": \"a\\\"b\", \"op\" : \"loc\" }"
        let bytes = Array(text.utf8)
        guard case .loc(let loc) = LocFrameScanner.scan(bytes) else {
            Issue.record("not scanned")
            return
        }
        #expect(loc.seq == 5 && loc.ts == 6)
        #expect(slice(bytes, loc.sub) == "a\\\"b")
        #expect(slice(bytes, loc.device) == "x.y")
    }

    @Test(
        "other ops are control frames",
        arguments: [
            #"{"op":"subscribed","sub":"A","restarted":false,"snapshot":0}"#,
            #"{"op":"error","code":"bad_request","message":"m"}"#,
            #"{"op":"welcome","conn":"c","node":"n","proto":1}"#,
            #"{"op":"leave","sub":"A","device":"d"}"#,
        ])
    func control(text: String) {
        #expect(LocFrameScanner.scan(Array(text.utf8)) == .control)
    }

    @Test(
        "frames the scanner cannot read are malformed",
        arguments: [
            "", "[]", "not json", #"{"op":"loc","sub":"A","device":"d","ts":1}"#,
            #"{"op":"loc","sub":"A","device":"d","ts":1,"seq":-2}"#,
            #"{"op":"loc","sub":"A","device":"d","ts":1.5,"seq":2}"#,
            #"{"op":"loc","sub":"A","device":"d","ts":1e3,"seq":2}"#,
            #"{"op":"loc","sub":"A","device":"d","ts":1,"seq":99999999999999999999}"#,
            #"{"op":"loc","sub":"A","device":"d","#, #"{"op":"loc","sub":"A"#, #"{"sub":"A"}"#, #"{"op":7}"#,
            #"{"op":"loc","attrs":{"a":[1,2}"#,
        ])
    func malformed(text: String) {
        #expect(LocFrameScanner.scan(Array(text.utf8)) == .malformed)
    }

    @Test("stops as soon as it has all five fields, whatever follows")
    func stopsEarly() {
        #expect(scanLoc(#"{"op":"loc","sub":"A","device":"d","ts":1,"seq":2,"lat":garbage"#)?.seq == 2)
    }
}
