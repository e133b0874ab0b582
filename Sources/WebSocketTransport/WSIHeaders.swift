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

    /// The URI tokens lws fills, one per method.
    private static let methods: [(lws_token_indexes, String)] = [
        (WSI_TOKEN_GET_URI, "GET"), (WSI_TOKEN_POST_URI, "POST"), (WSI_TOKEN_HEAD_URI, "HEAD"),
        (WSI_TOKEN_PUT_URI, "PUT"), (WSI_TOKEN_DELETE_URI, "DELETE"), (WSI_TOKEN_PATCH_URI, "PATCH"),
        (WSI_TOKEN_OPTIONS_URI, "OPTIONS"),
    ]

    /// The request method, from which URI token lws filled.
    static func method(_ wsi: OpaquePointer) -> String {
        methods.first { lws_hdr_total_length(wsi, $0.0) > 0 }?.1 ?? "UNKNOWN"
    }

    /// Every occurrence of header `token`, one entry per header line.
    static func occurrences(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> [String] {
        var values: [String] = []
        var index: Int32 = 0
        while true {
            var buffer = [CChar](repeating: 0, count: Int(lws_hdr_fragment_length(wsi, token, index)) + 1)
            guard lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), token, index) >= 0 else { return values }
            values.append(text(buffer))
            index += 1
        }
    }

    /// The headers `RequestFraming` and `HandshakeCheck` judge.
    private static let checkedHeaders: [(lws_token_indexes, String)] = [
        (WSI_TOKEN_HOST, "host"), (WSI_TOKEN_HTTP_CONTENT_LENGTH, "content-length"),
        (WSI_TOKEN_HTTP_TRANSFER_ENCODING, "transfer-encoding"), (WSI_TOKEN_CONNECTION, "connection"),
        (WSI_TOKEN_UPGRADE, "upgrade"), (WSI_TOKEN_VERSION, "sec-websocket-version"),
        (WSI_TOKEN_KEY, "sec-websocket-key"), (WSI_TOKEN_PROTOCOL, "sec-websocket-protocol"),
    ]

    /// The request head as `RequestFraming` sees it. A header lws cut at `tokenLimit`
    /// is listed as truncated (`uri` for the target).
    static func requestHead(_ wsi: OpaquePointer, tokenLimit: Int) -> RequestHead {
        let method = methods.first { lws_hdr_total_length(wsi, $0.0) > 0 }
        var headers: [String: [String]] = [:]
        for (token, name) in checkedHeaders {
            let values = occurrences(wsi, token)
            if !values.isEmpty { headers[name] = values }
        }
        var truncated: [String] = []
        for raw in 0..<WSI_TOKEN_COUNT.rawValue {
            let token = lws_token_indexes(rawValue: raw)
            guard occurrences(wsi, token).contains(where: { $0.utf8.count >= tokenLimit }) else { continue }
            let isURI = methods.contains { $0.0 == token } || token == WSI_TOKEN_HTTP_URI_ARGS
            let name = lws_token_to_string(token).map { String(cString: $0).filter { $0 != ":" } } ?? "?"
            truncated.append(isURI ? "uri" : name)
        }
        return RequestHead(
            method: method?.1 ?? "UNKNOWN", target: method.flatMap { value(wsi, $0.0) } ?? "",
            version: value(wsi, WSI_TOKEN_HTTP), headers: headers, truncated: truncated)
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
