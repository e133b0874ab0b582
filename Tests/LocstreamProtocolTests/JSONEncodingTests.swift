import Foundation
import Testing

@testable import LocstreamProtocol

@Suite("JSON encoding")
struct JSONEncodingTests {
    private func text(_ value: JSONValue) -> String {
        String(decoding: value.encoded(), as: UTF8.self)
    }

    @Test func scalars() {
        #expect(text(.null) == "null")
        #expect(text(.bool(true)) == "true")
        #expect(text(.bool(false)) == "false")
        #expect(text(.integer(0)) == "0")
        #expect(text(.integer(1_764_421_200_123)) == "1764421200123")
        #expect(text(.integer(.min)) == "-9223372036854775808")
        #expect(text(.integer(.max)) == "9223372036854775807")
        #expect(text(.number(8.3)) == "8.3")
        #expect(text(.number(52.520008)) == "52.520008")
        #expect(text(.number(-0.5)) == "-0.5")
    }

    @Test func stringEscaping() {
        #expect(text(.string("plain")) == #""plain""#)
        #expect(text(.string("a\"b\\c")) == #""a\"b\\c""#)
        #expect(text(.string("\n\r\t\u{8}\u{c}")) == #""\n\r\t\b\f""#)
        #expect(text(.string("\u{0}\u{1f}")) == #""\u0000\u001f""#)
        #expect(text(.string("/é€😀\u{7f}")) == "\"/é€😀\u{7f}\"")
    }

    @Test func objectKeysAreSorted() {
        let value = JSONValue.object([
            "b": .integer(1), "a": .array([.null, .string("x")]), "c": .object([:]),
        ])
        #expect(text(value) == #"{"a":[null,"x"],"b":1,"c":{}}"#)
    }

    @Test(
        "parse(encode(v)) == v",
        arguments: [
            JSONValue.object([
                "driver": .string("Zoë \"Z\" \\ \n"), "battery": .integer(87), "temp": .number(-3.25),
                "tags": .array([.string("a"), .bool(false), .null]),
                "nested": .object(["x": .number(1e-7)]),
            ]),
            .array([
                .number(1e21), .number(JSONNumber(.leastNonzeroMagnitude)),
                .number(JSONNumber(.greatestFiniteMagnitude)),
                .integer(.min),
            ]),
            .string(String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self)),
        ])
    func roundTrip(value: JSONValue) throws {
        #expect(try JSONValue(parsing: value.encoded()) == value)
    }

    @Test func foundationReadsTheOutput() throws {
        let value = JSONValue.object(["s": .string("q\"\u{1}é"), "n": .number(0.1), "i": .integer(-3)])
        let object = try foundationObject(value.encoded())
        #expect(object["s"] as? String == "q\"\u{1}é")
        #expect(object["n"] as? Double == 0.1)
        #expect(object["i"] as? Int == -3)
    }
}
