import LocstreamProtocol

/// How a frame the server sent differs in shape from the one a document shows: other field
/// names, other JSON types, or other values of the fields that name what a frame is.
enum FrameShape {
    /// The fields whose values must match, not only their types.
    static let comparedValues: Set = ["op", "code", "failed_op", "sub", "device", "restarted"]

    /// The differences between `expected` and `actual`, in words; empty when they match.
    static func mismatches(expected: JSONValue, actual: JSONValue) -> [String] {
        guard case .object(let want) = expected, case .object(let got) = actual else {
            return kind(of: expected) == kind(of: actual)
                ? [] : ["\(kind(of: actual)) instead of \(kind(of: expected))"]
        }
        var found: [String] = []
        for name in Set(want.keys).symmetricDifference(got.keys).sorted() {
            found.append(want[name] == nil ? "unexpected field \(name)" : "missing field \(name)")
        }
        for (name, value) in want.sorted(by: { $0.key < $1.key }) {
            guard let other = got[name] else { continue }
            if kind(of: value) != kind(of: other) {
                found.append("\(name) is a \(kind(of: other)), not a \(kind(of: value))")
            } else if comparedValues.contains(name), value != other {
                found.append("\(name) is \(other), not \(value)")
            }
        }
        return found
    }

    /// The JSON type of `value`: numbers are one type, however written.
    static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .integer, .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
