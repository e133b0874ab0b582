import Auth
import Foundation

/// Shared values for the tests: the HS256 secret, a fixed clock, and payload text.
enum TestSecrets {
    /// A 32-byte HS256 secret.
    static let secret = Array("0123456789abcdef0123456789abcdef".utf8)
    /// "Now" for every test: 2023-11-14T22:13:20Z.
    static let now: Int64 = 1_700_000_000
    /// `now` as a `Date`.
    static let nowDate = Date(timeIntervalSince1970: TimeInterval(now))

    /// A claims set valid at `now` for ten minutes, with every claim set.
    static let fullPayload = """
        {"sub":"client-7","exp":\(now + 600),"nbf":\(now - 60),"iat":\(now - 60),\
        "devices":["veh-*","courier-9"],"areas":true,"publish":["veh-1"]}
        """

    /// A claims set with only `sub` and `exp` (valid at `now`), plus `extra` members.
    static func payload(_ extra: String = "") -> String {
        #"{"sub":"client-7","exp":\#(now + 600)"# + (extra.isEmpty ? "" : "," + extra) + "}"
    }

    /// An HS256 verifier for `secret`.
    static func hs256Verifier(leeway: Duration = .zero) throws -> JWTVerifier {
        JWTVerifier(key: try JWTKey.secret(bytes: secret), leeway: leeway)
    }

    /// The error with which `verifier` refuses `token` at `now` (plus `offset` seconds), or
    /// nil when it accepts it.
    static func failure(_ verifier: JWTVerifier, _ token: String, offset: TimeInterval = 0) -> AuthError? {
        do {
            _ = try verifier.verify(token: token, now: nowDate.addingTimeInterval(offset))
            return nil
        } catch {
            return error
        }
    }

    /// The reason `verifier` refuses `token` at `now` (plus `offset` seconds), or nil when it accepts it.
    static func refusal(_ verifier: JWTVerifier, _ token: String, offset: TimeInterval = 0) -> AuthError.Reason? {
        failure(verifier, token, offset: offset)?.reason
    }
}
