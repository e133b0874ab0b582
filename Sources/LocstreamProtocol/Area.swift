/// A geographic area an area subscription watches.
public enum Area: Sendable, Equatable {
    /// A longitude/latitude box. `minLon > maxLon` crosses the antimeridian and wraps around it.
    case bbox(minLon: Double, minLat: Double, maxLon: Double, maxLat: Double)
    /// Every point within `radiusMeters` (great-circle distance) of a centre.
    case circle(lon: Double, lat: Double, radiusMeters: Double)
}
