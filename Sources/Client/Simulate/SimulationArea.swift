/// The box simulated devices move in: a plain longitude/latitude box that does not cross
/// the antimeridian.
struct SimulationArea: Sendable, Equatable {
    /// The western edge.
    var minLon: Double
    /// The southern edge.
    var minLat: Double
    /// The eastern edge.
    var maxLon: Double
    /// The northern edge.
    var maxLat: Double

    /// Central Berlin, the default.
    static let berlin = SimulationArea(minLon: 13.08, minLat: 52.33, maxLon: 13.76, maxLat: 52.68)

    /// Whether `point` is inside the box, edges included.
    func contains(_ point: GeoPoint) -> Bool {
        (minLat...maxLat).contains(point.lat) && (minLon...maxLon).contains(point.lon)
    }

    /// The nearest point of the box to `point`.
    func clamped(_ point: GeoPoint) -> GeoPoint {
        GeoPoint(lat: min(max(point.lat, minLat), maxLat), lon: min(max(point.lon, minLon), maxLon))
    }

    /// The box shrunk by `fraction` of its width and height on every side (the interior
    /// that new destinations are picked from, away from the edges).
    func inset(by fraction: Double) -> SimulationArea {
        let dLon = (maxLon - minLon) * fraction
        let dLat = (maxLat - minLat) * fraction
        return SimulationArea(
            minLon: minLon + dLon, minLat: minLat + dLat, maxLon: maxLon - dLon, maxLat: maxLat - dLat)
    }

    /// A uniformly random point of the box.
    func randomPoint(using generator: inout some RandomNumberGenerator) -> GeoPoint {
        GeoPoint(
            lat: minLat == maxLat ? minLat : Double.random(in: minLat...maxLat, using: &generator),
            lon: minLon == maxLon ? minLon : Double.random(in: minLon...maxLon, using: &generator))
    }
}
