/// Reads the fields of one JSON object against `FieldRule`s. Every failure is a
/// `ProtocolError` naming the field by its path (`locs[3].lat`) and carrying the failed op.
struct FieldReader {
    /// The object's members.
    let members: [String: JSONValue]
    /// Prepended to field names in messages: "" at the top level, "locs[3]." inside a batch.
    let path: String
    /// The op being decoded, reported as `failed_op`.
    let op: String?

    /// Reads `value`, which must be an object; `name` names it in the error otherwise.
    init(object value: JSONValue, name: String, expectation: String, op: String?)
        throws(ProtocolError)
    {
        guard case .object(let members) = value else {
            throw ProtocolError(.badRequest, "\(name) must be \(expectation)", failedOp: op)
        }
        self.members = members
        self.path = name.isEmpty ? "" : name + "."
        self.op = op
    }

    /// Reads the members of an object already unwrapped.
    init(members: [String: JSONValue], path: String, op: String?) {
        self.members = members
        self.path = path
        self.op = op
    }

    /// Whether the field is present (with any value, `null` included).
    func has(_ key: String) -> Bool { members[key] != nil }

    /// The field, which must be present and follow `rule`.
    func required<Value>(_ key: String, _ rule: FieldRule<Value>) throws(ProtocolError) -> Value {
        guard let raw = members[key] else {
            throw failure("\(path)\(key) is missing: it must be \(rule.expectation)")
        }
        guard let value = rule.accept(raw) else { throw invalid(key, rule.expectation) }
        return value
    }

    /// The field, nil when absent; when present (even as `null`) it must follow `rule`.
    func optional<Value>(_ key: String, _ rule: FieldRule<Value>) throws(ProtocolError) -> Value? {
        guard let raw = members[key] else { return nil }
        guard let value = rule.accept(raw) else { throw invalid(key, rule.expectation) }
        return value
    }

    /// "`<path><key>` must be `<expectation>`", as `bad_request`.
    func invalid(_ key: String, _ expectation: String) -> ProtocolError {
        failure("\(path)\(key) must be \(expectation)")
    }

    /// An error with this reader's failed op.
    func failure(_ message: String, code: ErrorCode = .badRequest) -> ProtocolError {
        ProtocolError(code, message, failedOp: op)
    }
}
