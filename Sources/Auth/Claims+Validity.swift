import Foundation

extension Claims {
    /// Checks the time claims at `now`, allowing `leeway` seconds of clock skew each way.
    ///
    /// Valid while `now < exp + leeway`, from `nbf - leeway` on, and when `iat` is no more
    /// than `leeway` in the future.
    func checkValidity(at now: Date, leeway: TimeInterval) throws(AuthError) {
        let now = now.timeIntervalSince1970
        if let notBefore, now + leeway < notBefore.timeIntervalSince1970 {
            throw AuthError(.notYetValid, "the token is not valid yet (nbf is in the future)")
        }
        if let issuedAt, issuedAt.timeIntervalSince1970 > now + leeway {
            throw AuthError(.notYetValid, "the token was issued in the future (iat)")
        }
        guard now < expiresAt.timeIntervalSince1970 + leeway else {
            throw AuthError(.expired, "the token has expired")
        }
    }
}
