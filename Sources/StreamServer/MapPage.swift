import WebSocketTransport

/// The live map served at `GET /`: one self-contained HTML page (inline CSS and
/// JavaScript, nothing fetched from elsewhere) that subscribes to the visible viewport
/// over `/v1/stream` and draws the devices on a canvas.
///
/// The page is compiled into the binary as string constants (`MapPageHTML.swift`,
/// `MapPageScript.swift`) rather than shipped as a SwiftPM resource, so the server needs
/// no Foundation `Bundle` and no resource directory beside the executable.
enum MapPage {
    /// The paths that serve the page.
    static let paths: Set<String> = ["/", "/index.html"]

    /// The whole page, UTF-8.
    static let body: [UInt8] = Array((htmlHead + script + htmlTail).utf8)

    /// A strong validator: the FNV-1a 64-bit hash of the page, quoted.
    static let etag: String = {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }()

    /// The `200` response carrying the page.
    static var response: HTTPResponse {
        HTTPResponse(
            status: 200, contentType: "text/html; charset=utf-8",
            headers: [
                ("cache-control", "no-cache"), ("etag", etag), ("x-content-type-options", "nosniff"),
            ],
            body: body)
    }
}
