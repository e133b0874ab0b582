import Foundation

/// Distances on the sphere (the mean Earth radius of IUGG), by the haversine formula,
/// which stays accurate for short distances and near the poles.
package enum GreatCircle {
    /// The mean Earth radius in metres.
    package static let earthRadiusMeters = 6_371_008.8
    /// The mean Earth radius in kilometres.
    package static let earthRadiusKm = earthRadiusMeters / 1000

    /// The great-circle distance in metres between two points given in degrees.
    package static func meters(fromLat lat1: Double, lon lon1: Double, toLat lat2: Double, lon lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let h =
            sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * earthRadiusMeters * asin(min(1, h.squareRoot()))
    }
}
