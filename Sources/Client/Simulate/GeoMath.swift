import Foundation
import LocstreamProtocol

/// Great-circle geometry on a spherical earth: distances, bearings and moving along a
/// bearing. Headings and bearings are degrees clockwise from north, in `0..<360`.
enum GeoMath {
    /// The mean earth radius, in metres.
    static let earthRadius = GreatCircle.earthRadiusMeters

    /// The great-circle distance between `a` and `b`, in metres (haversine).
    static func distance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        GreatCircle.meters(fromLat: a.lat, lon: a.lon, toLat: b.lat, lon: b.lon)
    }

    /// The initial bearing from `a` towards `b`.
    static func bearing(from a: GeoPoint, to b: GeoPoint) -> Double {
        let lat1 = radians(a.lat)
        let lat2 = radians(b.lat)
        let dLon = radians(b.lon - a.lon)
        let y = sin(dLon) * cos(lat2)
        let x = cos(lat1) * sin(lat2) - sin(lat1) * cos(lat2) * cos(dLon)
        return normalized(degrees(atan2(y, x)))
    }

    /// The point `distance` metres from `start` along `bearing`.
    static func destination(from start: GeoPoint, bearing: Double, distance: Double) -> GeoPoint {
        let angular = distance / earthRadius
        let theta = radians(bearing)
        let lat1 = radians(start.lat)
        let lon1 = radians(start.lon)
        let lat2 = asin(sin(lat1) * cos(angular) + cos(lat1) * sin(angular) * cos(theta))
        let lon2 = lon1 + atan2(sin(theta) * sin(angular) * cos(lat1), cos(angular) - sin(lat1) * sin(lat2))
        return GeoPoint(lat: degrees(lat2), lon: normalizedLongitude(degrees(lon2)))
    }

    /// `heading` brought into `0..<360`.
    static func normalized(_ heading: Double) -> Double {
        let value = heading.truncatingRemainder(dividingBy: 360)
        let positive = value < 0 ? value + 360 : value
        return positive >= 360 ? 0 : positive
    }

    /// The signed turn from `from` to `to`, in `-180...180` (positive is clockwise).
    static func turn(from: Double, to: Double) -> Double {
        var difference = (to - from).truncatingRemainder(dividingBy: 360)
        if difference > 180 { difference -= 360 }
        if difference < -180 { difference += 360 }
        return difference
    }

    /// Degrees to radians.
    static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }

    /// Radians to degrees.
    static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

    private static func normalizedLongitude(_ lon: Double) -> Double {
        var value = (lon + 180).truncatingRemainder(dividingBy: 360)
        if value < 0 { value += 360 }
        return value - 180
    }
}
