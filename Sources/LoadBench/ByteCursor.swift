/// A read position in a JSON frame, with the few moves the bench's scanner needs.
///
/// Every move stays inside the buffer: at the end, reads fail instead of trapping.
struct ByteCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Skips JSON whitespace.
    mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Consumes `byte` if it is next; true when it was.
    mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Skips whitespace, then consumes `byte` if it is next.
    mutating func skipSpaceAndTake(_ byte: UInt8) -> Bool {
        skipSpace()
        return take(byte)
    }

    /// Consumes a string; returns the range of its content, escapes left as they are.
    mutating func string() -> Range<Int>? {
        guard take(JSONByte.quote) else { return nil }
        let start = index
        while index < bytes.count {
            switch bytes[index] {
            case JSONByte.quote:
                defer { index += 1 }
                return start..<index
            case JSONByte.backslash:
                index += 2
            default:
                index += 1
            }
        }
        return nil
    }

    /// Consumes a non-negative integer of at most 19 digits; nil for anything else
    /// (a sign, a fraction, an exponent).
    mutating func unsignedInteger() -> UInt64? {
        let start = index
        var value: UInt64 = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            guard index - start < 19 else { return nil }
            value = value &* 10 &+ UInt64(bytes[index] &- 0x30)
            index += 1
        }
        guard index > start else { return nil }
        if index < bytes.count {
            let next = bytes[index]
            if next == JSONByte.dot || next == 0x65 || next == 0x45 { return nil }  // . e E
        }
        return value
    }

    /// Consumes one value of any kind without looking inside; false when the frame ends first.
    mutating func skipValue() -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case JSONByte.quote:
            return string() != nil
        case JSONByte.openBrace, JSONByte.openBracket:
            return skipNested()
        default:
            while index < bytes.count {
                switch bytes[index] {
                case JSONByte.comma, JSONByte.closeBrace, JSONByte.closeBracket, 0x20, 0x09, 0x0A, 0x0D: return true
                default: index += 1
                }
            }
            return false
        }
    }

    /// Consumes an object or array, with everything nested in it.
    private mutating func skipNested() -> Bool {
        var depth = 0
        while index < bytes.count {
            switch bytes[index] {
            case JSONByte.quote:
                guard string() != nil else { return false }
                continue
            case JSONByte.openBrace, JSONByte.openBracket:
                depth += 1
            case JSONByte.closeBrace, JSONByte.closeBracket:
                depth -= 1
                if depth == 0 {
                    index += 1
                    return true
                }
            default:
                break
            }
            index += 1
        }
        return false
    }

    /// Whether `range` of `bytes` holds exactly `expected`.
    static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ expected: [UInt8]) -> Bool {
        guard range.count == expected.count, range.upperBound <= bytes.count else { return false }
        var offset = 0
        for index in range {
            if bytes[index] != expected[offset] { return false }
            offset += 1
        }
        return true
    }
}

/// The JSON punctuation the scanner looks for.
enum JSONByte {
    static let quote: UInt8 = 0x22
    static let backslash: UInt8 = 0x5C
    static let dot: UInt8 = 0x2E
    static let comma: UInt8 = 0x2C
    static let colon: UInt8 = 0x3A
    static let openBrace: UInt8 = 0x7B
    static let closeBrace: UInt8 = 0x7D
    static let openBracket: UInt8 = 0x5B
    static let closeBracket: UInt8 = 0x5D
}
