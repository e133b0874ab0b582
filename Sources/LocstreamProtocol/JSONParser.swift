/// A strict RFC 8259 JSON parser that never recurses.
///
/// Why not Foundation: measured with this toolchain on Linux, `JSONSerialization` and
/// `JSONDecoder` both accept trailing commas such as `[1,]` and `{"a":1,}`, and both read
/// UTF-16 text without a byte order mark as if it were valid input. `JSONSerialization` also
/// returns `NSDecimalNumber` for `Int64.min` and for long integers, and tells integers from
/// other numbers only through `objCType`. Each of those would let invalid JSON through or change
/// an echoed value. This parser keeps its open arrays and objects on an explicit stack, so
/// hostile nesting costs heap, never call stack, and it stops at `ProtocolLimits.maxJSONDepth`.
struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    /// Whether a member name repeated in one object is an error (else the last value wins).
    private let refusesDuplicateKeys: Bool

    /// Creates a parser over one complete JSON text.
    init(_ bytes: [UInt8], refusesDuplicateKeys: Bool = false) {
        self.bytes = bytes
        self.refusesDuplicateKeys = refusesDuplicateKeys
    }

    /// Parses the whole text as exactly one JSON value surrounded by optional whitespace.
    mutating func parseDocument() throws(ProtocolError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw syntaxError("unexpected data after the JSON value") }
        return value
    }

    /// Parses one value from the next byte that is not whitespace, found inside `depth`
    /// arrays and objects already open, which count towards `ProtocolLimits.maxJSONDepth`.
    mutating func parseValue(depth: Int = 0) throws(ProtocolError) -> JSONValue {
        var stack: [OpenContainer] = []
        nextValue: while true {
            skipWhitespace()
            var value: JSONValue
            switch try peekByte() {
            case .openBrace, .openBracket:
                guard depth + stack.count < ProtocolLimits.maxJSONDepth else {
                    throw syntaxError(
                        "arrays and objects nest deeper than \(ProtocolLimits.maxJSONDepth) levels")
                }
                let isObject = bytes[index] == .openBrace
                index += 1
                skipWhitespace()
                if try peekByte() == (isObject ? .closeBrace : .closeBracket) {
                    index += 1
                    value = isObject ? .object([:]) : .array([])
                } else if isObject {
                    stack.append(OpenContainer(isObject: true, key: try parseKey()))
                    continue nextValue
                } else {
                    stack.append(OpenContainer(isObject: false, key: ""))
                    continue nextValue
                }
            case .quote:
                value = .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            case .minus, UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = try parseNumber()
            default:
                throw syntaxError("unexpected character")
            }

            while let top = stack.indices.last {
                if stack[top].isObject {
                    let key = stack[top].key
                    stack[top].members.append((key, value))
                } else {
                    stack[top].items.append(value)
                }
                skipWhitespace()
                let separator = try peekByte()
                index += 1
                switch separator {
                case .comma where stack[top].isObject:
                    skipWhitespace()
                    stack[top].key = try parseKey()
                    continue nextValue
                case .comma:
                    continue nextValue
                case .closeBrace where stack[top].isObject:
                    let members = stack.removeLast().members
                    let object = Dictionary(members) { _, last in last }
                    guard !refusesDuplicateKeys || object.count == members.count else {
                        index -= 1
                        throw syntaxError("an object repeats a member name")
                    }
                    value = .object(object)
                case .closeBracket where !stack[top].isObject:
                    value = .array(stack.removeLast().items)
                default:
                    index -= 1
                    throw syntaxError(stack[top].isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
            }
            return value
        }
    }

    /// An array or object whose closing bracket has not been read yet.
    private struct OpenContainer {
        let isObject: Bool
        /// The key whose value is being parsed (objects only).
        var key: String
        var items: [JSONValue] = []
        /// Collected in order and turned into a dictionary, sized once, when the object closes.
        var members: [(String, JSONValue)] = []
    }

    // MARK: Tokens

    /// Parses an object's member name and the `:` after it.
    mutating func parseKey() throws(ProtocolError) -> String {
        guard try peekByte() == .quote else { throw syntaxError("expected a string key") }
        let key = try parseString()
        skipWhitespace()
        guard try peekByte() == .colon else { throw syntaxError("expected ':' after a key") }
        index += 1
        return key
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(ProtocolError) {
        let count = literal.utf8CodeUnitCount
        let matches = literal.withUTF8Buffer { expected in
            index + count <= bytes.count && bytes[index..<index + count].elementsEqual(expected)
        }
        guard matches else { throw syntaxError("invalid literal") }
        index += count
    }

    /// Skips spaces, tabs and line breaks.
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case .space, .tab, .lineFeed, .carriageReturn: index += 1
            default: return
            }
        }
    }

    /// Consumes `byte` when it comes next.
    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { index == bytes.count }

    /// The index of the next byte to read.
    var offset: Int { index }

    private func peekByte() throws(ProtocolError) -> UInt8 {
        guard index < bytes.count else { throw syntaxError("unexpected end of input") }
        return bytes[index]
    }

    // MARK: Numbers

    /// Parses `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func parseNumber() throws(ProtocolError) -> JSONValue {
        let start = index
        if bytes[index] == .minus { index += 1 }
        let integerStart = index
        guard skipDigits() > 0 else { throw syntaxError("a number needs digits") }
        if bytes[integerStart] == UInt8(ascii: "0") && index - integerStart > 1 {
            throw syntaxError("a number must not have a leading zero")
        }
        var isInteger = true
        if index < bytes.count && bytes[index] == .period {
            isInteger = false
            index += 1
            guard skipDigits() > 0 else { throw syntaxError("a decimal point needs digits after it") }
        }
        if index < bytes.count && (bytes[index] | 0x20) == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < bytes.count && (bytes[index] == .plus || bytes[index] == .minus) { index += 1 }
            guard skipDigits() > 0 else { throw syntaxError("an exponent needs digits") }
        }
        let token = bytes[start..<index]
        if isInteger, let value = Self.int64(token), value != 0 || token.first != .minus {
            return .integer(value)
        }
        let text = String(decoding: token, as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw syntaxError("number out of range")
        }
        return .number(JSONNumber(text: text, value: value))
    }

    /// Skips ASCII digits and returns how many there were.
    private mutating func skipDigits() -> Int {
        let start = index
        while index < bytes.count && bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        return index - start
    }

    /// The integer a validated integer token spells, or nil if it does not fit in `Int64`.
    private static func int64(_ token: ArraySlice<UInt8>) -> Int64? {
        let isNegative = token.first == .minus
        var value: Int64 = 0  // accumulated negatively so that Int64.min fits
        for digit in token.dropFirst(isNegative ? 1 : 0) {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.subtractingReportingOverflow(
                Int64(digit &- UInt8(ascii: "0")))
            guard !overflow1 && !overflow2 else { return nil }
            value = next
        }
        if isNegative { return value }
        return value == .min ? nil : -value
    }

    // MARK: Strings

    /// Parses a string starting at its opening quote.
    private mutating func parseString() throws(ProtocolError) -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == .quote {
                index += 1
                return try makeString(bytes[start..<index - 1])
            }
            if byte == .backslash { break }
            guard byte >= 0x20 else {
                throw syntaxError("a control character must be escaped in a string")
            }
            index += 1
        }
        var buffer = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case .quote:
                return try makeString(buffer[...])
            case .backslash:
                try appendEscape(to: &buffer)
            case 0..<0x20:
                index -= 1
                throw syntaxError("a control character must be escaped in a string")
            default:
                buffer.append(byte)
            }
        }
        throw syntaxError("unterminated string")
    }

    private func makeString(_ utf8: ArraySlice<UInt8>) throws(ProtocolError) -> String {
        if utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: utf8, as: UTF8.self)  // ASCII is valid UTF-8: skip the validator
        }
        guard let string = String(validating: utf8, as: UTF8.self) else {
            throw syntaxError("invalid UTF-8 in a string")
        }
        return string
    }

    /// Decodes the escape after a backslash and appends it as UTF-8.
    private mutating func appendEscape(to buffer: inout [UInt8]) throws(ProtocolError) {
        let escape = try peekByte()
        index += 1
        switch escape {
        case .quote, .backslash, UInt8(ascii: "/"): buffer.append(escape)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(.lineFeed)
        case UInt8(ascii: "r"): buffer.append(.carriageReturn)
        case UInt8(ascii: "t"): buffer.append(.tab)
        case UInt8(ascii: "u"):
            var scalarValue = UInt32(try parseHex4())
            if (0xD800..<0xDC00).contains(scalarValue) {
                guard index + 1 < bytes.count, bytes[index] == .backslash,
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw syntaxError("a high surrogate must be followed by a low surrogate") }
                index += 2
                let low = UInt32(try parseHex4())
                guard (0xDC00..<0xE000).contains(low) else {
                    throw syntaxError("a high surrogate must be followed by a low surrogate")
                }
                scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else {
                throw syntaxError("a lone low surrogate")
            }
            UTF8.encode(scalar) { buffer.append($0) }
        default:
            throw syntaxError("invalid escape sequence")
        }
    }

    private mutating func parseHex4() throws(ProtocolError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw syntaxError("\\u needs four hex digits") }
        var value: UInt16 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw syntaxError("\\u needs four hex digits")
            }
            value = value << 4 | UInt16(digit)
        }
        index += 4
        return value
    }

    private func syntaxError(_ reason: String) -> ProtocolError {
        ProtocolError(.badJSON, "invalid JSON at byte \(index): \(reason)")
    }
}

extension JSONValue {
    /// Parses one complete JSON text (UTF-8, RFC 8259).
    ///
    /// Throws `bad_json` for anything that is not JSON: syntax errors, invalid UTF-8, `NaN`,
    /// `Infinity`, numbers beyond `Double` (such as `1e400`), and arrays or objects nested
    /// deeper than `ProtocolLimits.maxJSONDepth`.
    public init(parsing bytes: some Collection<UInt8>) throws(ProtocolError) {
        var parser = JSONParser(Array(bytes))
        self = try parser.parseDocument()
    }

    /// Parses like `init(parsing:)`, and also refuses an object that repeats a member name
    /// (`bad_json`), for texts such as JWT claims, where two readers must never disagree on
    /// which of two values counts.
    public init(parsingWithUniqueKeys bytes: some Collection<UInt8>) throws(ProtocolError) {
        var parser = JSONParser(Array(bytes), refusesDuplicateKeys: true)
        self = try parser.parseDocument()
    }
}
