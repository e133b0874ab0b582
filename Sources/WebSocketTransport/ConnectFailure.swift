import CWebsockets

/// Why a client connection failed, in words, where lws's own message is cryptic: a
/// certificate OpenSSL refused ("connect SSL err 1: error:00000001:lib(0)::reason(1)"),
/// or an HTTP answer other than 101 ("HS: ws upgrade response not 101").
enum ConnectFailure {
    /// The error for a failed connection `wsi`, read while lws reports the failure (its TLS
    /// session and response headers are still there); `lwsMessage` is lws's text.
    static func error(_ wsi: OpaquePointer, lwsMessage: String) -> TransportError {
        if let failure = locstream_tls_verify_failure(wsi) {
            return .tlsFailed("certificate verify failed: \(String(cString: failure))")
        }
        if lwsMessage.hasPrefix("connect SSL") || lwsMessage.hasPrefix("SSL") {
            return .tlsFailed("handshake failed (\(lwsMessage)); is the server speaking TLS on this port?")
        }
        let status = Int(lws_http_client_http_response(wsi))
        if status != 0, status != 101 { return .upgradeRefused(status: status) }
        return .connectFailed(lwsMessage)
    }
}
