import Foundation

/// Leaflet, as Debian's `libjs-leaflet` installs it (`leaflet.js`, `leaflet.css` and
/// `images/*.png`), read once at start and served under `/javascript/leaflet/`, the path
/// Debian's own web server configuration gives it. The map page loads it from there, so
/// the node needs no internet and carries no copy of Leaflet.
enum LeafletFiles {
    /// Where the files are served.
    static let urlPrefix = "/javascript/leaflet/"

    /// Each served path and its file, read from `directory`; empty when Leaflet is not there.
    static func assets(in directory: String) -> [String: StaticAsset] {
        var files = [("leaflet.js", "text/javascript; charset=utf-8"), ("leaflet.css", "text/css; charset=utf-8")]
        let images = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/images")) ?? []
        files += images.filter { $0.hasSuffix(".png") }.sorted().map { ("images/" + $0, "image/png") }
        var assets: [String: StaticAsset] = [:]
        for (name, contentType) in files {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { continue }
            assets[urlPrefix + name] = StaticAsset(Array(data), contentType: contentType)
        }
        return assets
    }
}
