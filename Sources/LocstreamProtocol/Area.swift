/// A geographic area an area subscription watches.
public enum Area: Sendable, Equatable {
    /// A longitude/latitude box. `minLon > maxLon` crosses the antimeridian and wraps around it.
    case bbox(minLon: Double, minLat: Double, maxLon: Double, maxLat: Double)
    /// Every point within `radiusMeters` (great-circle distance) of a centre.
    case circle(lon: Double, lat: Double, radiusMeters: Double)
}

extension Area {
    /// Why a box with no width is refused, in words.
    public static let noWidthReason =
        "the box has no width: minLon and maxLon name the same meridian (180 and -180 are one; minLon > maxLon wraps across the antimeridian)"

    /// The degrees of longitude from `minLon` eastward to `maxLon` (both in -180…180),
    /// in 0…360: `maxLon - minLon`, plus 360 when the span wraps across the antimeridian.
    /// `-180…180` is the whole parallel (360); `180…-180` and `x…x` are one meridian (0),
    /// which no box may be.
    public static func eastwardSpan(from minLon: Double, to maxLon: Double) -> Double {
        maxLon >= minLon ? maxLon - minLon : maxLon - minLon + 360
    }
}
