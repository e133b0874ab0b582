extension JWTKey {
    /// A compact JWS of `claims` signed with this key, which the verifier of the same key
    /// accepts (within its time claims): for development tokens (`stream-client token`).
    ///
    /// Only a shared secret signs (HS256); a public key cannot.
    ///
    /// - Throws: `JWTKeyError.unsupported` for a public key, or when OpenSSL fails.
    public func sign(_ claims: Claims) throws(JWTKeyError) -> String {
        guard case .secret(let secret) = material else {
            throw JWTKeyError(.unsupported, "a public key cannot sign; signing needs the HS256 secret")
        }
        let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let input = header + "." + Base64URL.encode(claims.payload.encoded())
        guard let mac = HMACSHA256.mac(key: secret, message: Array(input.utf8)) else {
            throw JWTKeyError(.unsupported, "OpenSSL could not compute the HMAC")
        }
        return input + "." + Base64URL.encode(mac)
    }
}
