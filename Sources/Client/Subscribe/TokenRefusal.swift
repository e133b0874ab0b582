import LocstreamProtocol

/// The server errors after which `subscribe` cannot go on with the token it was given: it
/// stops with exit status 1 and says what to do about `--token`, instead of reconnecting
/// forever with the same token.
enum TokenRefusal {
    /// What to tell the user when `error` means the token will not do, or nil when the
    /// command can go on: the `token expiring` warning, a refused switch (`isSwitch`: one typed
    /// on stdin, after which another can be typed), or any other error.
    static func message(for error: ProtocolError, hasToken: Bool, isSwitch: Bool) -> String? {
        switch error.code {
        case .unauthorized where error.message == "token expiring":
            return nil
        case .unauthorized:
            return hasToken
                ? "the server refused the token given with --token (\(error.message)); pass a valid one with --token"
                : "the server needs a token (\(error.message)); pass one with --token"
        case .forbidden where error.failedOp == "subscribe" && !isSwitch:
            return "the token given with --token does not allow this subscription (\(error.message)); "
                + "pass one that does with --token"
        default:
            return nil
        }
    }

    /// What to tell the user when the server closed the connection with `code`, or nil when
    /// reconnecting may help: 1008 is the close for a missing or expired token.
    static func message(forClose code: UInt16?) -> String? {
        guard code == 1008 else { return nil }
        return "the server closed the connection (close 1008: \(CloseText.meaning(of: 1008))); "
            + "pass a valid, unexpired token with --token"
    }
}
