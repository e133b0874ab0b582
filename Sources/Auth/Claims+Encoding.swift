import LocstreamProtocol

extension Claims {
    /// The claims set as JSON, in the names `Claims(payload:)` reads: `sub`, `exp`, `nbf` and
    /// `iat` when known, and the rights written out in full (`devices` and `publish` as
    /// lists, empty when they allow nothing; `areas` as a boolean).
    public var payload: JSONValue {
        var members: [String: JSONValue] = [
            "sub": .string(subject), "exp": .integer(expirySeconds),
            "devices": .array(devicePatterns.map { .string($0.pattern) }), "areas": .bool(areas),
            "publish": .array(publishPatterns.map { .string($0.pattern) }),
        ]
        if let notBeforeSeconds { members["nbf"] = .integer(notBeforeSeconds) }
        if let issuedAtSeconds { members["iat"] = .integer(issuedAtSeconds) }
        return .object(members)
    }
}
