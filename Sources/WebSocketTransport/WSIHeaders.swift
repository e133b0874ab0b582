import CWebsockets

/// Reading request headers of a connection, on the service thread.
enum WSIHeaders {
    /// The whole value of header `token`, or nil when absent.
    static func value(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return text(buffer)
    }

    /// The URI arguments, urldecoded by lws: `?a=1&b=2` gives `["a": "1", "b": "2"]`.
    static func query(_ wsi: OpaquePointer) -> [String: String] {
        var query: [String: String] = [:]
        var buffer = [CChar](repeating: 0, count: 4096)
        var index: Int32 = 0
        while lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index) >= 0 {
            let argument = text(buffer)
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if let key = parts.first, !key.isEmpty {
                query[String(key)] = parts.count > 1 ? String(parts[1]) : ""
            }
            index += 1
        }
        return query
    }

    /// The peer's numeric address.
    static func peer(_ wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &buffer, buffer.count) != nil else { return "" }
        return text(buffer)
    }

    /// The text before the first NUL of a C buffer.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The request method, from which URI token lws filled.
    static func method(_ wsi: OpaquePointer) -> String {
        let methods: [(lws_token_indexes, String)] = [
            (WSI_TOKEN_GET_URI, "GET"), (WSI_TOKEN_POST_URI, "POST"), (WSI_TOKEN_HEAD_URI, "HEAD"),
            (WSI_TOKEN_PUT_URI, "PUT"), (WSI_TOKEN_DELETE_URI, "DELETE"), (WSI_TOKEN_PATCH_URI, "PATCH"),
            (WSI_TOKEN_OPTIONS_URI, "OPTIONS"),
        ]
        return methods.first { lws_hdr_total_length(wsi, $0.0) > 0 }?.1 ?? "UNKNOWN"
    }

    /// The upgrade request as the application sees it.
    static func upgradeRequest(_ wsi: OpaquePointer) -> UpgradeRequest {
        UpgradeRequest(
            remoteAddress: peer(wsi),
            path: value(wsi, WSI_TOKEN_GET_URI) ?? "/",
            query: query(wsi),
            authorization: value(wsi, WSI_TOKEN_HTTP_AUTHORIZATION),
            origin: value(wsi, WSI_TOKEN_ORIGIN),
            subprotocol: value(wsi, WSI_TOKEN_PROTOCOL))
    }
}
