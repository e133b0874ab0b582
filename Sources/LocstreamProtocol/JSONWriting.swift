/// Appending JSON tokens straight to a byte buffer: the encoders' hot path, with no
/// intermediate `String` for strings, integers or keys.
extension [UInt8] {
    /// Appends ASCII text known at compile time, such as `{"op":"pong"`.
    mutating func appendASCII(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// Appends a JSON string literal, escaping `"`, `\` and control characters.
    mutating func appendJSONString(_ string: String) {
        append(.quote)
        appendEscaped(string.utf8)
        append(.quote)
    }

    private mutating func appendEscaped(_ utf8: some Collection<UInt8>) {
        guard utf8.contains(where: { $0 < 0x20 || $0 == .quote || $0 == .backslash }) else {
            append(contentsOf: utf8)
            return
        }
        for byte in utf8 {
            switch byte {
            case .quote: appendASCII("\\\"")
            case .backslash: appendASCII("\\\\")
            case .lineFeed: appendASCII("\\n")
            case .carriageReturn: appendASCII("\\r")
            case .tab: appendASCII("\\t")
            case 0x08: appendASCII("\\b")
            case 0x0C: appendASCII("\\f")
            case 0..<0x20:
                appendASCII("\\u00")
                append(Self.hexDigit(byte >> 4))
                append(Self.hexDigit(byte & 0x0F))
            default: append(byte)
            }
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// Appends an integer in decimal.
    mutating func appendJSONInteger(_ value: Int64) {
        if value < 0 { append(.minus) }
        appendJSONInteger(value.magnitude)
    }

    /// Appends a non-negative integer in decimal.
    mutating func appendJSONInteger(_ value: UInt64) {
        let start = endIndex
        var rest = value
        repeat {
            append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        self[start...].reverse()
    }

    /// Appends a number in shortest round-trip form; `null` for NaN and infinities, which JSON
    /// cannot carry (the decoders never produce them).
    mutating func appendJSONNumber(_ value: Double) {
        guard value.isFinite else {
            appendASCII("null")
            return
        }
        append(contentsOf: value.description.utf8)
    }

    /// Appends `true` or `false`.
    mutating func appendJSONBool(_ value: Bool) {
        if value { appendASCII("true") } else { appendASCII("false") }
    }
}
