import Foundation
import LocstreamProtocol

/// A validated area of an area subscription, ready for exact point tests: a box
/// (wrapping across the antimeridian when `minLon > maxLon`) or a great-circle disc.
///
/// `Area` is what the client sent; `GeoArea` is what the server checked: coordinates
/// finite and in range, no zero-width box, a positive radius, and its surface known.
public struct GeoArea: Sendable, Equatable {
    /// The shape, in degrees (and metres for the radius).
    public let area: Area
    /// The surface on the sphere, in square kilometres.
    public let squareKilometres: Double

    /// Checks `area`; the error says, in words, what is wrong with it.
    public init(_ area: Area) throws(GeoAreaError) {
        switch area {
        case .bbox(let minLon, let minLat, let maxLon, let maxLat):
            guard [minLon, maxLon].allSatisfy({ (-180...180).contains($0) }),
                [minLat, maxLat].allSatisfy({ (-90...90).contains($0) })
            else { throw GeoAreaError("bbox longitudes must be within -180…180 and latitudes within -90…90") }
            guard minLat < maxLat else { throw GeoAreaError("bbox minLat must be less than maxLat") }
            let width = Area.eastwardSpan(from: minLon, to: maxLon) * .pi / 180
            guard width > 0 else { throw GeoAreaError(Area.noWidthReason) }
            let band = sin(maxLat * .pi / 180) - sin(minLat * .pi / 180)
            squareKilometres = GreatCircle.earthRadiusKm * GreatCircle.earthRadiusKm * width * band
        case .circle(let lon, let lat, let radiusMeters):
            guard (-180...180).contains(lon), (-90...90).contains(lat) else {
                throw GeoAreaError("center must be [lon, lat] within -180…180 and -90…90")
            }
            guard radiusMeters > 0, radiusMeters.isFinite else { throw GeoAreaError("radius_m must be greater than 0") }
            let angle = min(radiusMeters / GreatCircle.earthRadiusMeters, .pi)
            squareKilometres = 2 * .pi * GreatCircle.earthRadiusKm * GreatCircle.earthRadiusKm * (1 - cos(angle))
        }
        self.area = area
    }

    /// Whether the point `lat`, `lon` (degrees) is inside, borders included.
    public func contains(lat: Double, lon: Double) -> Bool {
        switch area {
        case .bbox(let minLon, let minLat, let maxLon, let maxLat):
            guard lat >= minLat, lat <= maxLat else { return false }
            return Self.spans(lon, from: minLon, to: maxLon)
                || (abs(lon) == 180 && Self.spans(-lon, from: minLon, to: maxLon))
        case .circle(let centerLon, let centerLat, let radiusMeters):
            return GreatCircle.meters(fromLat: centerLat, lon: centerLon, toLat: lat, lon: lon) <= radiusMeters
        }
    }

    /// Whether the eastward span from `minLon` to `maxLon` holds `lon` (180 and -180
    /// are one meridian: the caller asks for both).
    private static func spans(_ lon: Double, from minLon: Double, to maxLon: Double) -> Bool {
        minLon <= maxLon ? (lon >= minLon && lon <= maxLon) : (lon >= minLon || lon <= maxLon)
    }

    /// Whether `location`'s position is inside.
    public func contains(_ location: Location) -> Bool {
        contains(lat: location.lat, lon: location.lon)
    }
}

/// Why an area was refused: the message of a `bad_request`.
public struct GeoAreaError: Error, Equatable {
    /// What is wrong, in words.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
}
