import Testing

@testable import LocstreamProtocol

@Suite("JSON parsing")
struct JSONParsingTests {
    private func parse(_ text: String) throws(ProtocolError) -> JSONValue {
        try JSONValue(parsing: bytes(text))
    }

    @Test(
        "integers stay apart from other numbers",
        arguments: [
            ("0", JSONValue.integer(0)),
            ("-0", .number(-0.0)),
            ("42", .integer(42)),
            ("-7", .integer(-7)),
            ("9223372036854775807", .integer(.max)),
            ("-9223372036854775808", .integer(.min)),
            ("9223372036854775808", .number(9_223_372_036_854_775_808.0)),
            ("-9223372036854775809", .number(-9_223_372_036_854_775_808.0)),
            ("1.0", .number(1.0)),
            ("1e3", .number(1000.0)),
            ("1E+3", .number(1000.0)),
            ("25e-1", .number(2.5)),
            ("0.1", .number(0.1)),
            ("52.520008", .number(52.520008)),
            ("-0.0", .number(-0.0)),
            ("1e-400", .number(0.0)),
            ("1.7976931348623157e308", .number(JSONNumber(.greatestFiniteMagnitude))),
        ])
    func numbers(text: String, expected: JSONValue) throws {
        guard case .number(let number) = expected else {
            #expect(try parse(text) == expected)
            return
        }
        #expect(try parse(text) == .number(JSONNumber(text: text, value: number.value)), "kept as written")
    }

    @Test func literalsAndStrings() throws {
        #expect(try parse(" true ") == .bool(true))
        #expect(try parse("false") == .bool(false))
        #expect(try parse("null") == .null)
        #expect(try parse(#""""#) == .string(""))
        #expect(try parse(#""a\"b\\c\/d\b\f\n\r\t""#) == .string("a\"b\\c/d\u{8}\u{c}\n\r\t"))
        #expect(try parse(#""\u0041\u00e9\u20ac\ud83d\ude00\u0000""#) == .string("Aé€😀\u{0}"))
        #expect(try parse("\"grüße 🚚\"") == .string("grüße 🚚"))
    }

    @Test func containers() throws {
        let value = try parse(#" { "a" : [ 1 , 2.5 , "x" , [ ] , { } ] , "b" : { "c" : null } } "#)
        #expect(
            value
                == .object([
                    "a": .array([.integer(1), .number(2.5), .string("x"), .array([]), .object([:])]),
                    "b": .object(["c": .null]),
                ]))
    }

    @Test func repeatedKeyKeepsTheLastValue() throws {
        #expect(try parse(#"{"a":1,"a":2}"#) == .object(["a": .integer(2)]))
    }

    @Test func sixtyFourLevelsAreAllowed() throws {
        let text = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        var value = try parse(text)
        var depth = 0
        while case .array(let items) = value {
            depth += 1
            value = items.first ?? .null
        }
        #expect(depth == 64)
    }

    @Test(
        "deeper than 64 levels is bad_json, without recursion",
        arguments: [
            DeepInput("65 arrays", String(repeating: "[", count: 65) + String(repeating: "]", count: 65)),
            DeepInput(
                "65 objects",
                String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)),
            DeepInput("60 000 open brackets", String(repeating: "[", count: 60_000)),
            DeepInput("60 000 open objects", String(repeating: #"{"a":"#, count: 60_000)),
            DeepInput("30 000 alternating", String(repeating: "[{\"a\":", count: 30_000)),
        ])
    func tooDeep(input: DeepInput) {
        #expect(parseCode(input.text) == .badJSON)
    }

    /// A large nesting test input, named so that test output stays readable.
    struct DeepInput: CustomTestStringConvertible, Sendable {
        let testDescription: String
        let text: String
        init(_ name: String, _ text: String) {
            testDescription = name
            self.text = text
        }
    }

    @Test(
        "not JSON",
        arguments: [
            "", " ", "nul", "True", "NaN", "-NaN", "Infinity", "-Infinity", "1e400", "-1e400",
            "01", "-01", "1.", ".5", "+1", "-", "1e", "1e+", "0x10", "1_000",
            "[1,]", #"{"a":1,}"#, "[,1]", #"{,"a":1}"#, "[1 2]", #"{"a" 1}"#, #"{"a":}"#, #"{a:1}"#,
            "{'a':1}", #"{"a":1}}"#, "[1]]", "[", "{", #"{"a""#, #""abc"#, "{} {}", "1 2",
            #""\x""#, #""\u12""#, #""\u12G4""#, #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#,
            "\"tab\there\"", "\"line\nbreak\"", "/* c */ {}", "{} // c", "\u{FEFF}{}",
        ])
    func notJSON(text: String) {
        #expect(parseCode(text) == .badJSON)
    }

    @Test(
        "invalid UTF-8 is bad_json",
        arguments: [
            [0x22, 0xC3, 0x28, 0x22],  // bad continuation
            [0x22, 0xC0, 0xAF, 0x22],  // overlong "/"
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // encoded surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // beyond U+10FFFF
            [0x22, 0xE2, 0x82, 0x22],  // truncated sequence
            [0x22, 0xFF, 0x22],
            [0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00],  // UTF-16LE with BOM
            [0x7B, 0x00, 0x7D, 0x00],  // UTF-16LE without BOM
            [0x5C, 0x22, 0x61, 0x5C, 0x6E, 0xC3, 0x22],  // invalid byte after an escape
        ] as [[UInt8]])
    func invalidUTF8(input: [UInt8]) {
        var code: ErrorCode?
        do { _ = try JSONValue(parsing: input) } catch { code = error.code }
        #expect(code == .badJSON)
    }

    @Test func errorsSayWhere() {
        var message = ""
        do { _ = try parse("[1,]") } catch { message = error.message }
        #expect(message == "invalid JSON at byte 3: unexpected character")
    }

    @Test func longNumbersAndStrings() throws {
        let digits = String(repeating: "9", count: 5_000)
        #expect(parseCode(digits) == .badJSON)  // 10^5000 overflows Double
        #expect(try parse("0." + digits) == .number(JSONNumber(text: "0." + digits, value: 1)))
        let long = String(repeating: "x", count: 70_000)
        #expect(try parse("\"\(long)\"") == .string(long))
    }

    private func parseCode(_ text: String) -> ErrorCode? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.code
        }
    }
}
