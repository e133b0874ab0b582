import Foundation

/// Strict, typed reads from one decoded JSON object: a JWT header or claims set.
///
/// Parsed with `JSONSerialization`, which keeps the last of duplicate member names as
/// RFC 7519 §4 allows. A member that is `null` reads as absent. A member of the wrong type
/// is an `invalid_claim` error, never a silent default: `true` is not a number, `1` is
/// not a boolean, and a list with one non-string element is refused whole.
struct JSONFields {
    /// The parsed object. `Any` never leaves this type.
    private let object: [String: Any]

    /// Parses `json` (UTF-8 text) that must be a single JSON object.
    ///
    /// - Parameter part: "header" or "payload", for the error message.
    /// - Throws: `AuthError.malformed`.
    init(json: [UInt8], part: String) throws(AuthError) {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(json))
        } catch {
            throw AuthError(.malformed, "the token's \(part) is not valid JSON")
        }
        guard let object = parsed as? [String: Any] else {
            throw AuthError(.malformed, "the token's \(part) is not a JSON object")
        }
        self.object = object
    }

    /// Whether `name` is present with a non-null value.
    func contains(_ name: String) -> Bool {
        value(name) != nil
    }

    /// A string member; nil when absent.
    func string(_ name: String) throws(AuthError) -> String? {
        guard let value = value(name) else { return nil }
        guard let string = value as? String else { throw mismatch(name, "a string") }
        return string
    }

    /// A boolean member (`true` or `false` only); nil when absent.
    func bool(_ name: String) throws(AuthError) -> Bool? {
        guard let value = value(name) else { return nil }
        guard let number = value as? NSNumber, Self.isBoolean(number) else { throw mismatch(name, "true or false") }
        return number.boolValue
    }

    /// An integer member: a JSON number with no fractional part that fits in 64 bits
    /// (`1700000000`, `1.7e9` and `1700000000.0` all qualify); nil when absent.
    func integer(_ name: String) throws(AuthError) -> Int64? {
        guard let value = value(name) else { return nil }
        guard let number = value as? NSNumber, !Self.isBoolean(number), let integer = Self.exactInteger(number) else {
            throw mismatch(name, "an integer number of seconds")
        }
        return integer
    }

    /// An array-of-strings member; nil when absent.
    func strings(_ name: String) throws(AuthError) -> [String]? {
        guard let value = value(name) else { return nil }
        guard let array = value as? [Any] else { throw mismatch(name, "an array of strings") }
        var strings: [String] = []
        strings.reserveCapacity(array.count)
        for element in array {
            guard let string = element as? String else { throw mismatch(name, "an array of strings") }
            strings.append(string)
        }
        return strings
    }

    /// The member's value, with `null` read as absent.
    private func value(_ name: String) -> Any? {
        guard let value = object[name], !(value is NSNull) else { return nil }
        return value
    }

    /// The error for a member of the wrong type.
    private func mismatch(_ name: String, _ expected: String) -> AuthError {
        AuthError(.invalidClaim, "\"\(name)\" must be \(expected)")
    }

    /// Whether `number` came from JSON `true`/`false`. Foundation (Darwin and Linux alike)
    /// gives booleans the Objective-C type code `c`, which it never uses for JSON numbers.
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }

    /// `number` as an `Int64` when it is integral and in range.
    private static func exactInteger(_ number: NSNumber) -> Int64? {
        switch String(cString: number.objCType) {
        case "f", "d": Int64(exactly: number.doubleValue)
        case "Q", "L", "I", "S", "C": Int64(exactly: number.uint64Value)
        default: number.int64Value
        }
    }
}
