import CWebsockets

/// Writes a response's status line (with its standard reason phrase) and headers through
/// lws's HTTP helpers.
enum HTTPHeaderWriter {
    /// Writes the headers of `response` (its `Content-Length` even when the body is not
    /// sent, as for HEAD or a 304), with `Connection: close` when `closing`; false when lws refused.
    static func write(_ response: HTTPResponse, to wsi: OpaquePointer, closing: Bool) -> Bool {
        let pre = locstream_lws_pre()
        let headers = response.headers + (closing ? [("connection", "close")] : [])
        let extra = headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 8 }
        var buffer = [UInt8](repeating: 0, count: pre + 1024 + extra)
        return buffer.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            let start = base + pre
            let end = base + buffer.count
            var cursor: UnsafeMutablePointer<UInt8>? = start
            guard
                lws_add_http_common_headers(
                    wsi, UInt32(response.status), response.contentType, lws_filepos_t(response.body.count),
                    &cursor, end) == 0,
                let written = cursor
            else { return false }
            // lws writes an empty reason phrase for most codes: the status line is redone.
            let head = HTTPStatus.withReasonPhrase(Array(UnsafeBufferPointer(start: start, count: written - start)))
            guard head.count <= end - start else { return false }
            for (offset, byte) in head.enumerated() { start[offset] = byte }
            cursor = start + head.count
            for header in headers {
                let name = header.name.lowercased() + ":"
                let value = Array(header.value.utf8)
                let added = value.withUnsafeBufferPointer { value in
                    lws_add_http_header_by_name(wsi, name, value.baseAddress, Int32(value.count), &cursor, end)
                }
                guard added == 0 else { return false }
            }
            return lws_finalize_write_http_header(wsi, start, &cursor, end) == 0
        }
    }
}
