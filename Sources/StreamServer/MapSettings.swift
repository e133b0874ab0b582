/// What the map page at `GET /` shows beneath the devices: `--map-tiles`,
/// `--map-attribution`, and where Leaflet is installed (`--leaflet-dir`).
struct MapSettings: Sendable {
    /// An `{z}/{x}/{y}` tile URL template; nil draws the offline longitude/latitude grid.
    var tiles: String?
    /// The credit shown in the map's corner for the tiles.
    var attribution = ""
    /// Debian's `libjs-leaflet` files, served at `LeafletFiles.urlPrefix`.
    var leafletDirectory = "/usr/share/javascript/leaflet"
}
