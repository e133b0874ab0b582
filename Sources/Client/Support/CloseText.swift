/// Close codes in words, for the messages that say why a connection ended.
enum CloseText {
    /// What PROTOCOL.md says `code` means.
    static func meaning(of code: UInt16) -> String {
        switch code {
        case 1000: "normal close"
        case 1001: "going away: the server is shutting down"
        case 1006: "abnormal close"
        case 1007: "invalid UTF-8"
        case 1008: "policy: no valid token, token expired, or too many bad frames"
        case 1009: "message too large"
        case 1011: "internal server error"
        case 4008: "slow consumer"
        default: "close code \(code)"
        }
    }

    /// ` (close 1001: going away: …)`, or "" when the peer sent no close code.
    static func suffix(_ code: UInt16?) -> String {
        guard let code else { return " (no close frame)" }
        return " (close \(code): \(meaning(of: code)))"
    }
}
