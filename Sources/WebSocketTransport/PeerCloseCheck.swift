/// Whether a close frame from the peer is well formed (RFC 6455 §5.5.1, §7.4): empty,
/// or a status code a peer may send followed by a reason. Anything else fails the
/// connection with 1002.
enum PeerCloseCheck {
    /// True when `payload` (the close frame's body) is acceptable.
    static func isValid(_ payload: UnsafeRawBufferPointer) -> Bool {
        if payload.isEmpty { return true }
        guard payload.count >= 2 else { return false }
        return isSendable(UInt16(payload[0]) << 8 | UInt16(payload[1]))
    }

    /// The codes a peer may put on the wire: the defined ones of 1000–1014 except
    /// 1004–1006 (reserved, or for local use only), and 3000–4999 (registered and private).
    static func isSendable(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}
