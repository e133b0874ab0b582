/// The checks of a WebSocket upgrade request (RFC 6455 §4.2.1), on top of
/// `RequestFraming`'s: answered with 400 or 426 and a reason, never a bare close.
public enum HandshakeCheck {
    /// The longest sub-protocol name libwebsockets can match (it fails on longer ones).
    static let maxProtocolName = 63
    /// The longest `Sec-WebSocket-Protocol` list libwebsockets can read.
    static let maxProtocolList = 127

    /// Nil when `head` is an acceptable upgrade to `subprotocol`, else the refusal.
    public static func refusal(of head: RequestHead, subprotocol: String, bodyLimit: Int) -> RequestRefusal? {
        do throws(RequestRefusal) {
            _ = try RequestFraming.bodyLength(of: head, bodyLimit: bodyLimit).get()
            guard head.method == "GET", head.isHTTP11 else {
                throw RequestRefusal(400, .handshake, "a WebSocket upgrade is a GET over HTTP/1.1")
            }
            try checkVersion(head)
            try checkKey(head)
            guard head.values("connection").contains(where: { tokens($0).contains("upgrade") }) else {
                throw RequestRefusal(400, .handshake, "a WebSocket upgrade needs Connection: Upgrade")
            }
            try checkProtocols(head, subprotocol: subprotocol)
            return nil
        } catch {
            return error
        }
    }

    /// `Sec-WebSocket-Version` must be exactly 13; anything else gets 426 naming 13.
    static func checkVersion(_ head: RequestHead) throws(RequestRefusal) {
        guard head.values("sec-websocket-version") != ["13"] else { return }
        throw RequestRefusal(
            426, .handshake, "Sec-WebSocket-Version must be 13", headers: [("sec-websocket-version", "13")])
    }

    /// `Sec-WebSocket-Key`: one, the base64 of 16 bytes (24 characters ending in `==`).
    static func checkKey(_ head: RequestHead) throws(RequestRefusal) {
        let keys = head.values("sec-websocket-key")
        guard keys.count == 1, let key = keys.first, isNonce(key) else {
            throw RequestRefusal(400, .handshake, "Sec-WebSocket-Key must be one base64-encoded 16-byte value")
        }
    }

    /// Sub-protocols: none offered, or a list of tokens that includes `subprotocol`.
    static func checkProtocols(_ head: RequestHead, subprotocol: String) throws(RequestRefusal) {
        let offered = head.values("sec-websocket-protocol")
        guard !offered.isEmpty else { return }
        let list = offered.joined(separator: ",")
        guard list.utf8.count <= maxProtocolList else {
            throw RequestRefusal(400, .handshake, "Sec-WebSocket-Protocol is too long")
        }
        let names = tokens(list, lowercased: false)
        guard names.allSatisfy({ !$0.isEmpty && $0.utf8.count <= maxProtocolName && isToken($0) }) else {
            throw RequestRefusal(400, .handshake, "Sec-WebSocket-Protocol must be a comma-separated list of tokens")
        }
        guard names.contains(subprotocol) else {
            throw RequestRefusal(400, .handshake, "no offered sub-protocol is supported; offer \(subprotocol)")
        }
    }

    /// The comma-separated elements of a header value, trimmed (and lower-cased).
    static func tokens(_ value: String, lowercased: Bool = true) -> [String] {
        let isBlank = { (character: Character) in character == " " || character == "\t" }
        return value.split(separator: ",", omittingEmptySubsequences: false).map {
            let trimmed = String($0.drop(while: isBlank).reversed().drop(while: isBlank).reversed())
            return lowercased ? trimmed.lowercased() : trimmed
        }
    }

    /// True for an RFC 7230 token (visible ASCII, no separators).
    static func isToken(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F && !"\"(),/:;<=>?@[\\]{}".utf8.contains(byte)
        }
    }

    /// True for 22 base64 characters followed by `==`: exactly 16 bytes encoded.
    static func isNonce(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return false }
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        return bytes[..<22].allSatisfy(alphabet.contains)
    }
}
