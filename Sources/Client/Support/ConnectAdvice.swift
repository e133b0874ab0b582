import WebSocketTransport

extension TransportError {
    /// What to do about a failed connection with `stream-client`'s options, as `; …`, or "".
    var advice: String {
        switch self {
        case .tlsFailed:
            "; pass --cacert FILE to trust the CA that signed the server's certificate, "
                + "or --insecure to skip the check (tests only)"
        case .upgradeRefused(404): "; check the URL's path: the stream is at /v1/stream"
        default: ""
        }
    }
}
