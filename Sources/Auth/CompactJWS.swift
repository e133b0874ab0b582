/// A token split into the three parts of a JWS compact serialization
/// (`header.payload.signature`), each decoded, with the exact bytes that were signed.
///
/// Nothing here is trusted yet: the header picks no key, and the payload is read only
/// after the signature has been checked.
struct CompactJWS {
    /// The longest token accepted, in bytes; real tokens are a few hundred.
    static let maximumLength = 16 * 1024

    /// The decoded JOSE header (JSON text).
    let header: [UInt8]
    /// The decoded claims set (JSON text).
    let payload: [UInt8]
    /// The decoded signature.
    let signature: [UInt8]
    /// `base64url(header) "." base64url(payload)`, as received: what the signature covers.
    let signingInput: [UInt8]

    /// Splits and decodes `token`.
    ///
    /// - Throws: `AuthError.malformed`; the message never quotes the token.
    init(_ token: String) throws(AuthError) {
        let bytes = Array(token.utf8)
        guard !bytes.isEmpty else { throw AuthError(.malformed, "the token is empty") }
        guard bytes.count <= Self.maximumLength else {
            throw AuthError(.malformed, "the token is longer than \(Self.maximumLength) bytes")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw AuthError(.malformed, "the token has \(parts.count) parts; a signed JWT has 3")
        }
        guard let header = Base64URL.decode(parts[0]) else { throw Self.badEncoding("header") }
        guard let payload = Base64URL.decode(parts[1]) else { throw Self.badEncoding("payload") }
        guard let signature = Base64URL.decode(parts[2]) else { throw Self.badEncoding("signature") }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = Array(bytes[..<parts[1].endIndex])
    }

    /// The error for a part that is not unpadded base64url.
    private static func badEncoding(_ part: String) -> AuthError {
        AuthError(.malformed, "the token's \(part) is not unpadded base64url")
    }
}
