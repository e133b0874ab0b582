import Foundation

extension Claims {
    /// Checks the time claims at `now`, allowing `leeway` seconds of clock skew each way.
    ///
    /// Valid while `now < exp + leeway`, from `nbf - leeway` on, and when `iat` is no more
    /// than `leeway` in the future. Compared as doubles: an `Int64` always converts to a
    /// `Double` (the other way round can trap), and a second's rounding at 2^53 s is moot.
    public func checkValidity(at now: Date, leeway: TimeInterval) throws(AuthError) {
        let now = now.timeIntervalSince1970
        if let notBeforeSeconds, now + leeway < TimeInterval(notBeforeSeconds) {
            throw AuthError(.notYetValid, "the token is not valid yet (nbf is in the future)")
        }
        if let issuedAtSeconds, TimeInterval(issuedAtSeconds) > now + leeway {
            throw AuthError(.notYetValid, "the token was issued in the future (iat)")
        }
        guard now < TimeInterval(expirySeconds) + leeway else {
            throw AuthError(.expired, "the token has expired")
        }
    }
}
