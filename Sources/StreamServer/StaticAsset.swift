import WebSocketTransport

/// A file compiled into the server, served with its content type and a strong `ETag`
/// computed once. Clients must revalidate (`Cache-Control: no-cache`) and get
/// `304 Not Modified` while their copy is current.
struct StaticAsset: Sendable {
    /// The file's bytes.
    let bytes: [UInt8]
    /// The `Content-Type` header.
    let contentType: String
    /// A strong validator: the FNV-1a 64-bit hash of `bytes`, quoted.
    let etag: String

    /// An asset of `bytes`, served as `contentType`.
    init(_ bytes: [UInt8], contentType: String) {
        self.bytes = bytes
        self.contentType = contentType
        self.etag = Self.entityTag(of: bytes)
    }

    /// The answer to a `GET` (or `HEAD`) of the asset: `304` without a body when the
    /// request's `If-None-Match` names the current `etag`, else `200` with the file.
    /// The `304` keeps the `200`'s headers and length; the transport never sends a
    /// `304`'s body.
    func response(to request: HTTPRequest) -> HTTPResponse {
        let notModified = request.ifNoneMatch.map { IfNoneMatch.matches($0, etag: etag) } ?? false
        return HTTPResponse(
            status: notModified ? 304 : 200, contentType: contentType,
            headers: [("cache-control", "no-cache"), ("etag", etag), ("x-content-type-options", "nosniff")],
            body: bytes)
    }

    /// The FNV-1a 64-bit hash of `bytes` as a quoted entity tag of 16 hex digits.
    private static func entityTag(of bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }
}
