import Foundation

/// Mints JWTs from raw JSON text, signing with the `openssl` tool so that the code under
/// test never checks its own output.
package enum JWTMint {
    /// Unpadded base64url.
    package static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// `base64url(header) "." base64url(payload)`.
    package static func signingInput(header: String, payload: String) -> String {
        base64URL(Array(header.utf8)) + "." + base64URL(Array(payload.utf8))
    }

    /// A token signed with HMAC-SHA256 under `secret` (made by `openssl dgst -mac HMAC`),
    /// whatever `header` says.
    package static func hs256(header: String, payload: String, secret: [UInt8]) throws -> String {
        let input = signingInput(header: header, payload: payload)
        let hexKey = secret.map { String(format: "%02x", $0) }.joined()
        let mac = try OpenSSLTool.run(
            ["dgst", "-sha256", "-mac", "HMAC", "-macopt", "hexkey:\(hexKey)", "-binary"], input: Array(input.utf8))
        return input + "." + base64URL(mac)
    }

    /// `openssl dgst -sha256 -sign` of `input` with the PEM private key at `privateKeyPath`:
    /// an RS256 signature for an RSA key, a DER-encoded ECDSA one for an EC key.
    package static func signature(of input: String, privateKeyPath: String) throws -> [UInt8] {
        try OpenSSLTool.run(["dgst", "-sha256", "-sign", privateKeyPath, "-binary"], input: Array(input.utf8))
    }
}
