import Foundation
import StreamCore
import WebSocketTransport

/// The live map: a page at `GET /` on Leaflet that subscribes to the visible viewport with
/// locstream.js and draws the devices on a canvas layer, or clusters (an aggregated area's
/// cells) when the viewport is too wide or too crowded for devices. Its files live in `MapPage/`
/// beside this one (`index.html`, `map.js`, `map.css`, and `locstream.js`, a link to
/// `clients/js/locstream.js`) and are compiled into the binary with SwiftPM's
/// `.embedInCode`; Leaflet is read from the Debian package (`LeafletFiles`). The page's
/// settings (tiles, attribution, the area and cell limits, whether to ask for a token) are written
/// into `index.html` at start, so the page needs no request to learn them.
struct MapPage: Sendable {
    /// The browser client library, also for pages of other sites: `/locstream.js`.
    static let library = StaticAsset(PackageResources.locstream_js, contentType: "text/javascript; charset=utf-8")
    /// The page's script, an ES module on `library`.
    static let script = StaticAsset(PackageResources.map_js, contentType: "text/javascript; charset=utf-8")
    /// The style.
    static let style = StaticAsset(PackageResources.map_css, contentType: "text/css; charset=utf-8")
    /// Where `index.html` takes the settings.
    static let settingsMarker = "{\"map\":\"settings\"}"

    /// Each path that serves a file of the page, and the file.
    let assets: [String: StaticAsset]
    /// Whether Leaflet was found (without it the page says it is missing).
    let hasLeaflet: Bool

    /// The page for `map`, with the node's area and cell limits and whether it requires tokens.
    init(map: MapSettings, limits: SessionLimits, requiresToken: Bool) {
        var settings: [String: Any] = [
            "attribution": map.attribution, "maxAreaKm2": limits.maxAreaKm2, "maxCells": limits.maxCells,
            "auth": requiresToken, "leaflet": LeafletFiles.urlPrefix,
        ]
        settings["tiles"] = map.tiles ?? NSNull()
        let json = (try? JSONSerialization.data(withJSONObject: settings, options: [.sortedKeys])) ?? Data("{}".utf8)
        // Inside <script>, "</" could end the element: written as "<\/", which JSON reads back the same.
        let text = String(decoding: json, as: UTF8.self).replacingOccurrences(of: "</", with: "<\\/")
        let html = String(decoding: PackageResources.index_html, as: UTF8.self)
            .replacingOccurrences(of: Self.settingsMarker, with: text)
        let page = StaticAsset(Array(html.utf8), contentType: "text/html; charset=utf-8")
        let leaflet = LeafletFiles.assets(in: map.leafletDirectory)
        hasLeaflet = !leaflet.isEmpty
        assets = leaflet.merging([
            "/": page, "/index.html": page, "/map.js": Self.script, "/map.css": Self.style,
            "/locstream.js": Self.library,
        ]) { $1 }
    }
}
