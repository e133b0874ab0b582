import Foundation
import TestSupport

/// Makes signed JWTs for the tests from raw JSON text, signing with the `openssl` tool so
/// that the code under test never checks its own output.
enum TokenFactory {
    /// The header of an HS256 token.
    static let hs256Header = #"{"alg":"HS256","typ":"JWT"}"#
    /// The header of an RS256 token.
    static let rs256Header = #"{"alg":"RS256","typ":"JWT"}"#
    /// The header of an ES256 token.
    static let es256Header = #"{"alg":"ES256","typ":"JWT"}"#

    /// Unpadded base64url.
    static func base64URL(_ bytes: [UInt8]) -> String { JWTMint.base64URL(bytes) }

    /// `base64url(header) "." base64url(payload)`.
    static func signingInput(header: String, payload: String) -> String {
        JWTMint.signingInput(header: header, payload: payload)
    }

    /// An HS256 token: HMAC-SHA256 made by `openssl dgst -mac HMAC`.
    static func hs256(
        _ payload: String, secret: [UInt8] = TestSecrets.secret, header: String = hs256Header
    ) throws -> String {
        try JWTMint.hs256(header: header, payload: payload, secret: secret)
    }

    /// An RS256 token: RSASSA-PKCS1-v1_5 made by `openssl dgst -sign`.
    static func rs256(_ payload: String, key: TestKeys.KeyPair, header: String = rs256Header) throws -> String {
        let input = signingInput(header: header, payload: payload)
        return input + "." + base64URL(try JWTMint.signature(of: input, privateKeyPath: key.privateKeyPath))
    }

    /// An ES256 token: `openssl dgst -sign` makes a DER signature, turned into raw `r || s`.
    static func es256(_ payload: String, key: TestKeys.KeyPair, header: String = es256Header) throws -> String {
        let input = signingInput(header: header, payload: payload)
        let der = try JWTMint.signature(of: input, privateKeyPath: key.privateKeyPath)
        return input + "." + base64URL(try DERSignature.raw(fromDER: der))
    }

    /// An unsigned token (`header.payload.`), as an attacker would send it.
    static func unsigned(_ payload: String, header: String = #"{"alg":"none","typ":"JWT"}"#) -> String {
        signingInput(header: header, payload: payload) + "."
    }
}
