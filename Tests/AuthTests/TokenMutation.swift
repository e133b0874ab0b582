import Foundation

/// Tampering with a finished token, as an attacker would.
enum TokenMutation {
    /// The token's three dot-separated parts.
    static func parts(_ token: String) -> [String] {
        token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// Decodes unpadded base64url with Foundation (independent of the code under test).
    static func decode(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }

    /// The token with one bit of its signature byte at `index` flipped.
    static func flippingSignatureByte(_ token: String, at index: Int = 10) -> String {
        var parts = parts(token)
        guard var signature = decode(parts[2]), index < signature.count else { return token }
        signature[index] ^= 0x01
        parts[2] = TokenFactory.base64URL(signature)
        return parts.joined(separator: ".")
    }

    /// The token with its payload replaced by `payload` and the old signature kept.
    static func replacingPayload(_ token: String, with payload: String) -> String {
        var parts = parts(token)
        parts[1] = TokenFactory.base64URL(Array(payload.utf8))
        return parts.joined(separator: ".")
    }

    /// The token with its signature replaced by `signature`.
    static func replacingSignature(_ token: String, with signature: [UInt8]) -> String {
        var parts = parts(token)
        parts[2] = TokenFactory.base64URL(signature)
        return parts.joined(separator: ".")
    }
}
