import Foundation

extension Claims {
    /// Reads the claims from a verified payload. `sub` (a non-empty string) and `exp` are
    /// required; every claim present must have its documented type. Claims this server
    /// does not use (`iss`, `aud`, `jti`, …) are ignored.
    init(payload: JSONFields) throws(AuthError) {
        guard let subject = try payload.string("sub") else { throw AuthError(.missingClaim, "\"sub\" is missing") }
        guard !subject.isEmpty else { throw AuthError(.invalidClaim, "\"sub\" is empty") }
        guard let expiry = try payload.integer("exp") else { throw AuthError(.missingClaim, "\"exp\" is missing") }
        self.init(
            subject: subject,
            expirySeconds: expiry,
            notBeforeSeconds: try payload.integer("nbf"),
            issuedAtSeconds: try payload.integer("iat"),
            devicePatterns: try Self.patterns("devices", in: payload),
            areas: try payload.bool("areas") ?? false,
            publishPatterns: try Self.patterns("publish", in: payload)
        )
    }

    /// The glob list `name`, within `PatternSet`'s limits: a token's patterns are tested on
    /// the fan-out path, so a token cannot bring an unbounded number of them.
    private static func patterns(_ name: String, in payload: JSONFields) throws(AuthError) -> [String] {
        let patterns = try payload.strings(name) ?? []
        guard patterns.count <= PatternSet.maxPatterns else {
            throw AuthError(
                .invalidClaim,
                "\"\(name)\" holds \(patterns.count) patterns; at most \(PatternSet.maxPatterns) are allowed")
        }
        let general = PatternSet(patterns).generalCount
        guard general <= PatternSet.maxGeneral else {
            throw AuthError(
                .invalidClaim,
                "\"\(name)\" holds \(general) patterns other than an exact id or prefix*; at most \(PatternSet.maxGeneral) are allowed"
            )
        }
        return patterns
    }
}
