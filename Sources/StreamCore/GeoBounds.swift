import Foundation
import LocstreamProtocol

/// Where an area lies, in degrees: its latitude extent, and for any band of latitudes
/// the longitudes it reaches there. A grid cover is built from these, row by row, so a
/// disc costs the cells it reaches in each row, not its whole bounding box.
struct GeoBounds {
    /// A run of longitudes from `west` eastward to `east`; `west > east` wraps across
    /// the antimeridian. Nil in place of a run means every longitude.
    typealias Longitudes = (west: Double, east: Double)

    /// A margin, in degrees, so rounding never leaves a border point outside its cover.
    private static let margin = 1e-5

    /// The lowest and highest latitude of a point inside.
    let minLat: Double
    let maxLat: Double
    private let shape: Shape

    private enum Shape {
        /// The same longitudes at every latitude (nil: all of them).
        case box(Longitudes?)
        /// A spherical cap: centre in degrees, angular radius in radians.
        case cap(lat: Double, lon: Double, angle: Double)
    }

    init(_ area: GeoArea) {
        switch area.area {
        case .bbox(let minLon, let minLat, let maxLon, let maxLat):
            self.minLat = minLat
            self.maxLat = maxLat
            let full = Area.eastwardSpan(from: minLon, to: maxLon) >= 360
            shape = .box(full ? nil : (minLon, maxLon))
        case .circle(let centerLon, let centerLat, let radiusMeters):
            let angle = min(radiusMeters / GreatCircle.earthRadiusMeters, .pi)
            let degrees = angle * 180 / .pi + Self.margin
            minLat = max(centerLat - degrees, -90)
            maxLat = min(centerLat + degrees, 90)
            shape = .cap(lat: centerLat, lon: centerLon, angle: angle)
        }
    }

    /// The longitudes the area reaches between latitudes `low` and `high` (a band
    /// within `minLat…maxLat`); nil when it reaches every longitude there.
    func longitudes(from low: Double, to high: Double) -> Longitudes? {
        switch shape {
        case .box(let longitudes):
            return longitudes
        case .cap(let lat, let lon, let angle):
            guard let halfWidth = Self.capHalfWidth(lat: lat, angle: angle, from: low, to: high) else { return nil }
            return (Self.wrap(lon - halfWidth), Self.wrap(lon + halfWidth))
        }
    }

    /// The widest longitude half-width, in degrees, of the cap centred at latitude
    /// `lat` with angular radius `angle` anywhere in the band `low…high`; nil when it
    /// spans every longitude there.
    ///
    /// At latitude φ a point Δλ from the centre's meridian is inside when
    /// `cos Δλ ≥ f(φ) = (cos δ − sin φ sin φc) / (cos φ cos φc)`. The widest point of the
    /// band is where f is smallest; f has one stationary point, at `sin φ = sin φc / cos δ`,
    /// so the smallest f is at an end of the band or there.
    private static func capHalfWidth(lat: Double, angle: Double, from low: Double, to high: Double) -> Double? {
        let radians = Double.pi / 180
        let centre = lat * radians
        guard angle < .pi, cos(centre) > 1e-12, high < 90, low > -90 else { return nil }
        var candidates = [low * radians, high * radians]
        let turning = sin(centre) / cos(angle)
        if abs(turning) <= 1, asin(turning) >= low * radians, asin(turning) <= high * radians {
            candidates.append(asin(turning))
        }
        let smallest = candidates.map { (cos(angle) - sin($0) * sin(centre)) / (cos($0) * cos(centre)) }.min() ?? -1
        guard smallest > -1 else { return nil }
        let halfWidth = acos(min(smallest, 1)) / radians + margin
        return halfWidth < 180 ? halfWidth : nil
    }

    /// `lon` brought back into -180…180.
    private static func wrap(_ lon: Double) -> Double {
        if lon < -180 { return lon + 360 }
        if lon > 180 { return lon - 360 }
        return lon
    }
}
