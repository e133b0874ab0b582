/// Whether a close frame from the peer is well formed (RFC 6455 §5.5.1, §7.4): empty,
/// or a status code a peer may send followed by a UTF-8 reason. Anything else fails
/// the connection: 1002 for the frame, 1007 for a reason that is not UTF-8.
enum PeerCloseCheck {
    /// The close code to fail the connection with, or nil when `payload` (the close
    /// frame's body) is acceptable.
    static func failure(of payload: UnsafeRawBufferPointer) -> CloseRequest? {
        if payload.isEmpty { return nil }
        guard payload.count >= 2, isSendable(UInt16(payload[0]) << 8 | UInt16(payload[1])) else {
            return CloseRequest(code: 1002, reason: "invalid close frame")
        }
        guard String(validating: payload.dropFirst(2), as: UTF8.self) != nil else {
            return CloseRequest(code: 1007, reason: "close reason is not UTF-8")
        }
        return nil
    }

    /// The codes a peer may put on the wire: those RFC 6455 defines, 1000–1011 except
    /// 1004–1006 (reserved, or for local use only), and 3000–4999 (registered and private).
    /// libwebsockets 4.1.6 turns the later-registered 1012–1014 into 1002 before the
    /// server sees them, so they count as invalid here too.
    static func isSendable(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }
}
