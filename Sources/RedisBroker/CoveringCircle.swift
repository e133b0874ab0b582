import Foundation
import LocstreamProtocol
import StreamCore

/// A circle that contains an area, for Redis `GEOSEARCH … BYRADIUS`, whose candidates
/// are then tested exactly against the area.
///
/// For a box, the centre is the middle of its latitudes and (wrapping) longitudes. A
/// point of the box is at most half the latitude span away along the centre's meridian,
/// then at most half the longitude span along its own parallel, which is no shorter
/// than the great circle; the parallel is longest at the box latitude nearest the
/// equator. The sum of the two bounds every point. Redis measures on a slightly larger
/// sphere (radius 6372797.56 m) from 52-bit geohashes, so the radius is widened by
/// 0.1 % plus 10 m. The geo set only holds latitudes within ±85.05112878°, so a centre
/// beyond is moved to that limit (the radius grows by the move), and a circle reaching
/// past it also asks for the devices kept outside the geo set.
struct CoveringCircle: Equatable {
    /// The geo set's latitude limit.
    static let geoLatitudeLimit = 85.05112878

    var lon: Double
    var lat: Double
    var radiusMeters: Double
    /// Whether the circle reaches beyond the geo set's latitude limit.
    var reachesPolar: Bool

    init(_ area: GeoArea) {
        let radians = Double.pi / 180
        let earth = GreatCircle.earthRadiusMeters
        var radius: Double
        switch area.area {
        case .circle(let centerLon, let centerLat, let radiusMeters):
            (lon, lat, radius) = (centerLon, centerLat, radiusMeters)
        case .bbox(let minLon, let minLat, let maxLon, let maxLat):
            let width = Area.eastwardSpan(from: minLon, to: maxLon)
            lon = minLon + width / 2
            if lon > 180 { lon -= 360 }
            lat = (minLat + maxLat) / 2
            let nearestEquator = minLat <= 0 && maxLat >= 0 ? 0 : min(abs(minLat), abs(maxLat))
            radius = earth * ((maxLat - minLat) / 2 * radians + cos(nearestEquator * radians) * width / 2 * radians)
        }
        radius = radius * 1.001 + 10
        let clamped = min(max(lat, -Self.geoLatitudeLimit), Self.geoLatitudeLimit)
        radius += abs(lat - clamped) * radians * earth
        lat = clamped
        radiusMeters = min(radius, Double.pi * earth * 1.001 + 10)
        reachesPolar = abs(lat) + radiusMeters / earth / radians >= Self.geoLatitudeLimit
    }
}
