/// What one field must hold: the check, and the same rule in words for the error message.
struct FieldRule<Value>: Sendable {
    /// Completes "`<field>` must be …", e.g. "a number between -90 and 90".
    let expectation: String
    /// The field's value when the JSON value satisfies the rule, otherwise nil.
    let accept: @Sendable (JSONValue) -> Value?
}

extension FieldRule<Double> {
    /// A JSON number inside `range`.
    static func number(in range: ClosedRange<Double>, _ expectation: String) -> Self {
        Self(expectation: expectation) { value in
            value.doubleValue.flatMap { range.contains($0) ? $0 : nil }
        }
    }

    static var latitude: Self { .number(in: -90...90, "a number between -90 and 90") }
    static var longitude: Self { .number(in: -180...180, "a number between -180 and 180") }
    static var heading: Self { .number(in: 0...360, "a number between 0 and 360") }
    static var nonNegative: Self {
        .number(in: 0...Double.greatestFiniteMagnitude, "a non-negative number")
    }
    static var positive: Self {
        Self(expectation: "a positive number") { value in
            value.doubleValue.flatMap { $0 > 0 ? $0 : nil }
        }
    }
}

extension FieldRule<Int64> {
    static var timestamp: Self {
        Self(expectation: "an integer between 0 and 2^53 (milliseconds since the Unix epoch)") {
            value in
            value.integerValue.flatMap { (0...ProtocolLimits.maxTimestamp).contains($0) ? $0 : nil }
        }
    }

    static var nonNegativeInteger: Self {
        Self(expectation: "a non-negative integer") { value in
            value.integerValue.flatMap { $0 >= 0 ? $0 : nil }
        }
    }
}

extension FieldRule<UInt64> {
    /// A seq: a non-negative integer up to `Int64.max`, decided from its digits, so that a
    /// seq is refused rather than silently rounded.
    static var sequence: Self {
        Self(expectation: "a non-negative integer") { value in
            value.integerValue.flatMap { UInt64(exactly: $0) }
        }
    }
}

extension FieldRule<String> {
    static var deviceID: Self {
        Self(expectation: "a device id: \(DeviceID.rule)") { value in
            guard case .string(let id) = value, DeviceID.isValid(id) else { return nil }
            return id
        }
    }

    /// A string of 1 to 128 characters, counted as Unicode scalars.
    static var identifier: Self {
        Self(expectation: "a string of 1 to 128 characters") { value in
            guard case .string(let id) = value,
                (1...ProtocolLimits.maxIdLength).contains(id.unicodeScalars.count)
            else { return nil }
            return id
        }
    }

    static var nonEmptyString: Self {
        Self(expectation: "a non-empty string") { value in
            guard case .string(let string) = value, !string.isEmpty else { return nil }
            return string
        }
    }

    static var anyString: Self {
        Self(expectation: "a string") { value in
            guard case .string(let string) = value else { return nil }
            return string
        }
    }
}

extension FieldRule<Bool> {
    static var boolean: Self {
        Self(expectation: "true or false") { value in
            guard case .bool(let flag) = value else { return nil }
            return flag
        }
    }
}

extension FieldRule<JSONValue> {
    static var anyNumber: Self {
        Self(expectation: "a number") { value in value.isNumber ? value : nil }
    }

    static var attributes: Self {
        Self(expectation: "a JSON object of at most \(ProtocolLimits.maxAttrsBytes) bytes") { value in
            guard case .object = value, value.encoded().count <= ProtocolLimits.maxAttrsBytes else {
                return nil
            }
            return value
        }
    }
}
