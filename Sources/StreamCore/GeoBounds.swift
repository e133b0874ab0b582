import Foundation

/// The latitude band and longitude span enclosing an area. `lon` is nil when every
/// longitude is included (a disc around a pole); `lon.min > lon.max` wraps across the
/// antimeridian.
struct GeoBounds {
    var minLat: Double
    var maxLat: Double
    var lon: (min: Double, max: Double)?

    /// A margin, in degrees, so rounding never leaves a border point outside its cover.
    private static let margin = 1e-9

    init(_ area: GeoArea) {
        switch area.area {
        case .bbox(let minLon, let minLat, let maxLon, let maxLat):
            self.init(minLat: minLat, maxLat: maxLat, lon: (minLon, maxLon))
        case .circle(let centerLon, let centerLat, let radiusMeters):
            self.init(centerLat: centerLat, centerLon: centerLon, radiusMeters: radiusMeters)
        }
    }

    private init(minLat: Double, maxLat: Double, lon: (min: Double, max: Double)?) {
        self.minLat = minLat
        self.maxLat = maxLat
        self.lon = lon
    }

    /// The exact bounds of a spherical cap: its latitude band, and the longitude
    /// half-width `asin(sin δ / cos φ)` where the cap does not reach a pole.
    private init(centerLat: Double, centerLon: Double, radiusMeters: Double) {
        let angle = radiusMeters / GreatCircle.earthRadiusMeters
        let degrees = angle * 180 / .pi + Self.margin
        minLat = max(centerLat - degrees, -90)
        maxLat = min(centerLat + degrees, 90)
        let ratio = sin(min(angle, .pi / 2)) / cos(centerLat * .pi / 180)
        guard centerLat - degrees > -90, centerLat + degrees < 90, angle < .pi / 2, ratio < 1 else {
            lon = nil
            return
        }
        let halfWidth = asin(ratio) * 180 / .pi + Self.margin
        guard halfWidth < 180 else {
            lon = nil
            return
        }
        lon = (Self.wrap(centerLon - halfWidth), Self.wrap(centerLon + halfWidth))
    }

    /// `lon` brought back into -180…180.
    private static func wrap(_ lon: Double) -> Double {
        if lon < -180 { return lon + 360 }
        if lon > 180 { return lon - 360 }
        return lon
    }
}
