import LocstreamProtocol

/// Strict, typed reads from one decoded JSON object: a JWT header or claims set.
///
/// Parsed with the protocol's strict parser (`JSONValue`), the same one every client frame
/// goes through: RFC 8259 only (no trailing commas, no UTF-16 guessing, bounded nesting), and
/// an object that repeats a member name is refused, as RFC 7519 §4 allows, so that no two
/// readers of a token can disagree on which value of a claim counts. A member that is `null`
/// reads as absent. A member of the wrong type is an `invalid_claim` error, never a silent
/// default: `true` is not a number, `1` is not a boolean, and a list with one non-string
/// element is refused whole.
struct JSONFields {
    /// The parsed object's members.
    private let members: [String: JSONValue]

    /// Parses `json` (UTF-8 text) that must be a single JSON object.
    ///
    /// - Parameter part: "header" or "payload", for the error message.
    /// - Throws: `AuthError.malformed`.
    init(json: [UInt8], part: String) throws(AuthError) {
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsingWithUniqueKeys: json)
        } catch {
            throw AuthError(.malformed, "the token's \(part) is not valid JSON (\(error.message))")
        }
        guard case .object(let members) = parsed else {
            throw AuthError(.malformed, "the token's \(part) is not a JSON object")
        }
        self.members = members
    }

    /// The whole object.
    var object: JSONValue { .object(members) }

    /// Whether `name` is present with a non-null value.
    func contains(_ name: String) -> Bool {
        value(name) != nil
    }

    /// A string member; nil when absent.
    func string(_ name: String) throws(AuthError) -> String? {
        guard let value = value(name) else { return nil }
        guard case .string(let string) = value else { throw mismatch(name, "a string") }
        return string
    }

    /// A boolean member (`true` or `false` only); nil when absent.
    func bool(_ name: String) throws(AuthError) -> Bool? {
        guard let value = value(name) else { return nil }
        guard case .bool(let flag) = value else { throw mismatch(name, "true or false") }
        return flag
    }

    /// An integer member: a JSON number whose digits spell an integer that fits in 64 bits
    /// (`1700000000`, `1.7e9` and `1700000000.0` all qualify, `1e30` does not); nil when absent.
    func integer(_ name: String) throws(AuthError) -> Int64? {
        guard let value = value(name) else { return nil }
        guard let integer = value.integerValue else { throw mismatch(name, "an integer number of seconds") }
        return integer
    }

    /// An array-of-strings member; nil when absent.
    func strings(_ name: String) throws(AuthError) -> [String]? {
        guard let value = value(name) else { return nil }
        guard case .array(let items) = value else { throw mismatch(name, "an array of strings") }
        var strings: [String] = []
        strings.reserveCapacity(items.count)
        for item in items {
            guard case .string(let string) = item else { throw mismatch(name, "an array of strings") }
            strings.append(string)
        }
        return strings
    }

    /// The member's value, with `null` read as absent.
    private func value(_ name: String) -> JSONValue? {
        guard let value = members[name], value != .null else { return nil }
        return value
    }

    /// The error for a member of the wrong type.
    private func mismatch(_ name: String, _ expected: String) -> AuthError {
        AuthError(.invalidClaim, "\"\(name)\" must be \(expected)")
    }
}
