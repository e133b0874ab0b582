import LocstreamProtocol

/// Random devices and viewports for the area property test, clustered where areas are
/// hard: a city, the antimeridian (Fiji) and both poles.
struct AreaWorld {
    private struct Cluster {
        let lat: Double
        let lon: Double
        /// How far devices and viewports spread in longitude, in degrees.
        let lonSpread: Double
    }

    private static let clusters = [
        Cluster(lat: 52.5, lon: 13.4, lonSpread: 0.3), Cluster(lat: -17, lon: 179.95, lonSpread: 0.3),
        Cluster(lat: 89.7, lon: 0, lonSpread: 180), Cluster(lat: -89.6, lon: 100, lonSpread: 180),
    ]

    var random: SeededRandom

    /// A position near a random cluster.
    mutating func position() -> (lat: Double, lon: Double) {
        let cluster = Self.clusters[Int.random(in: 0..<Self.clusters.count, using: &random)]
        return (
            Self.clampLat(cluster.lat + Double.random(in: -0.3...0.3, using: &random)),
            Self.wrapLon(cluster.lon + Double.random(in: -cluster.lonSpread...cluster.lonSpread, using: &random))
        )
    }

    /// A small step from `from`, or now and then a jump to another cluster.
    mutating func move(from: (lat: Double, lon: Double)) -> (lat: Double, lon: Double) {
        guard Double.random(in: 0..<1, using: &random) < 0.85 else { return position() }
        return (
            Self.clampLat(from.lat + Double.random(in: -0.08...0.08, using: &random)),
            Self.wrapLon(from.lon + Double.random(in: -0.08...0.08, using: &random))
        )
    }

    /// A viewport (box, possibly wrapping) or a circle near a random cluster.
    mutating func area() -> Area {
        let center = position()
        if Bool.random(using: &random) {
            return .circle(
                lon: center.lon, lat: center.lat, radiusMeters: Double.random(in: 2_000...40_000, using: &random))
        }
        let height = Double.random(in: 0.05...0.4, using: &random)
        let width = Double.random(in: 0.05...0.6, using: &random)
        return .bbox(
            minLon: Self.wrapLon(center.lon - width), minLat: Self.clampLat(center.lat - height),
            maxLon: Self.wrapLon(center.lon + width), maxLat: Self.clampLat(center.lat + height))
    }

    private static func clampLat(_ lat: Double) -> Double { min(max(lat, -90), 90) }

    private static func wrapLon(_ lon: Double) -> Double {
        lon > 180 ? lon - 360 : (lon < -180 ? lon + 360 : lon)
    }
}
