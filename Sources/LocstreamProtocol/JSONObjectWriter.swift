/// Writes one JSON object member by member, placing the commas, into a byte buffer.
///
/// Keys are `StaticString`s from this module, plain ASCII that needs no escaping.
struct JSONObjectWriter {
    /// The bytes written so far; nested values may be appended directly after `key(_:)`.
    var bytes: [UInt8]
    private var needsComma: Bool

    /// Starts an object with `{"op":"<op>"`.
    init(op: StaticString, capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.appendASCII("{\"op\":\"")
        bytes.appendASCII(op)
        bytes.append(.quote)
        needsComma = true
    }

    /// Starts with nothing written: the members continue an object opened elsewhere
    /// (the body of a `loc` frame), or `openBrace` writes the `{`. `afterMember` says
    /// members were already written before these, so the first needs a comma.
    init(openBrace: Bool, afterMember: Bool = false, capacity: Int = 128) {
        bytes = []
        bytes.reserveCapacity(capacity)
        if openBrace { bytes.append(.openBrace) }
        needsComma = afterMember
    }

    /// Writes `"key":`, preceded by a comma when needed.
    mutating func key(_ key: StaticString) {
        if needsComma { bytes.append(.comma) }
        needsComma = true
        bytes.append(.quote)
        bytes.appendASCII(key)
        bytes.appendASCII("\":")
    }

    /// Writes a string member.
    mutating func string(_ key: StaticString, _ value: String) {
        self.key(key)
        bytes.appendJSONString(value)
    }

    /// Writes an integer member.
    mutating func integer(_ key: StaticString, _ value: Int64) {
        self.key(key)
        bytes.appendJSONInteger(value)
    }

    /// Writes a non-negative integer member.
    mutating func integer(_ key: StaticString, _ value: UInt64) {
        self.key(key)
        bytes.appendJSONInteger(value)
    }

    /// Writes a number member.
    mutating func number(_ key: StaticString, _ value: Double) {
        self.key(key)
        bytes.appendJSONNumber(value)
    }

    /// Writes a boolean member.
    mutating func bool(_ key: StaticString, _ value: Bool) {
        self.key(key)
        bytes.appendJSONBool(value)
    }

    /// Writes a member holding any JSON value.
    mutating func value(_ key: StaticString, _ value: JSONValue) {
        self.key(key)
        value.append(to: &bytes)
    }

    /// Closes the object and returns its bytes.
    consuming func finish() -> [UInt8] {
        bytes.append(.closeBrace)
        return bytes
    }
}
