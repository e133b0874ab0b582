import WebSocketTransport

/// The live map: a page at `GET /` that subscribes to the visible viewport over
/// `/v1/stream` and draws the devices on a canvas. Its three files live in `MapPage/`
/// beside this one (`index.html`, `map.js`, `map.css`; nothing is fetched from
/// elsewhere) and are compiled into the binary with SwiftPM's `.embedInCode`, so the
/// server needs no Foundation `Bundle` and no resource directory beside the executable.
enum MapPage {
    /// The markup.
    static let page = StaticAsset(PackageResources.index_html, contentType: "text/html; charset=utf-8")
    /// The script: the WebSocket client, the canvas drawing and the test hook (`window.locstream`).
    static let script = StaticAsset(PackageResources.map_js, contentType: "text/javascript; charset=utf-8")
    /// The style.
    static let style = StaticAsset(PackageResources.map_css, contentType: "text/css; charset=utf-8")

    /// Each path that serves a file of the page, and the file.
    static let assets: [String: StaticAsset] = [
        "/": page, "/index.html": page, "/map.js": script, "/map.css": style,
    ]
}
