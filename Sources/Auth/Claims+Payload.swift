import Foundation

extension Claims {
    /// Reads the claims from a verified payload. `sub` (a non-empty string) and `exp` are
    /// required; every claim present must have its documented type. Claims this server
    /// does not use (`iss`, `aud`, `jti`, …) are ignored.
    init(payload: JSONFields) throws(AuthError) {
        guard let subject = try payload.string("sub") else { throw AuthError(.missingClaim, "\"sub\" is missing") }
        guard !subject.isEmpty else { throw AuthError(.invalidClaim, "\"sub\" is empty") }
        guard let expiresAt = try payload.integer("exp") else { throw AuthError(.missingClaim, "\"exp\" is missing") }
        self.init(
            subject: subject,
            expiresAt: Self.date(expiresAt),
            notBefore: try payload.integer("nbf").map(Self.date),
            issuedAt: try payload.integer("iat").map(Self.date),
            devicePatterns: try payload.strings("devices") ?? [],
            areas: try payload.bool("areas") ?? false,
            publishPatterns: try payload.strings("publish") ?? []
        )
    }

    /// A JWT NumericDate (whole seconds since 1970 UTC) as a `Date`.
    private static func date(_ seconds: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
