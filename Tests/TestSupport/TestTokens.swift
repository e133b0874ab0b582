import Foundation

/// HS256 tokens for end-to-end tests, signed by the `openssl` tool (not by the code
/// under test).
package enum TestTokens {
    /// The shared secret the test servers are started with.
    package static let secret = "locstream-test-secret-0123456789abcdef"

    /// `--auth jwt` with `secret`, plus `extra` options.
    package static func serverOptions(_ extra: [String] = []) -> [String] {
        ["--auth", "jwt", "--jwt-secret", secret] + extra
    }

    /// A token for `subject` expiring `expiresIn` seconds from now, with the given claims.
    package static func make(
        subject: String = "tester", expiresIn: TimeInterval = 600, devices: [String]? = ["*"], areas: Bool = false,
        publish: [String]? = ["*"], algorithm: String = "HS256", key: String = secret
    ) throws -> String {
        var claims: [String: Any] = [
            "sub": subject, "exp": Int(Date().timeIntervalSince1970 + expiresIn), "areas": areas,
        ]
        if let devices { claims["devices"] = devices }
        if let publish { claims["publish"] = publish }
        let payload = String(decoding: try JSONSerialization.data(withJSONObject: claims), as: UTF8.self)
        return try signed(payload: payload, algorithm: algorithm, key: key)
    }

    /// A token whose payload is `payload` exactly as written (numbers beyond what
    /// `JSONSerialization` writes, repeated keys…), signed HS256 with `key`.
    package static func signed(payload: String, algorithm: String = "HS256", key: String = secret) throws -> String {
        let header = #"{"alg":"\#(algorithm)","typ":"JWT"}"#
        guard algorithm != "none" else { return JWTMint.signingInput(header: header, payload: payload) + "." }
        return try JWTMint.hs256(header: header, payload: payload, secret: Array(key.utf8))
    }
}
