extension JSONValue {
    /// This value as compact JSON bytes, object keys sorted so that equal values encode equally.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        append(to: &bytes)
        return bytes
    }

    /// Appends this value as compact JSON.
    ///
    /// This recurses once per nesting level. Parsed values are at most
    /// `ProtocolLimits.maxJSONDepth` deep; a value built by hand is the caller's to keep shallow.
    func append(to bytes: inout [UInt8]) {
        switch self {
        case .null:
            bytes.appendASCII("null")
        case .bool(let value):
            bytes.appendJSONBool(value)
        case .integer(let value):
            bytes.appendJSONInteger(value)
        case .number(let number):
            bytes.append(contentsOf: number.text.utf8)
        case .string(let value):
            bytes.appendJSONString(value)
        case .array(let items):
            bytes.append(.openBracket)
            for (position, item) in items.enumerated() {
                if position > 0 { bytes.append(.comma) }
                item.append(to: &bytes)
            }
            bytes.append(.closeBracket)
        case .object(let members):
            bytes.append(.openBrace)
            for (position, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if position > 0 { bytes.append(.comma) }
                bytes.appendJSONString(member.key)
                bytes.append(.colon)
                member.value.append(to: &bytes)
            }
            bytes.append(.closeBrace)
        }
    }
}
