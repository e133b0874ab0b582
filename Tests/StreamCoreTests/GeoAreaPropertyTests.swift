import Foundation
import LocstreamProtocol
import Testing

@testable import StreamCore

/// Properties of area geometry over random and edge-case shapes: the width of a box
/// wrapping or not, the surface of boxes and discs, and what `contains` says, at the
/// antimeridian (±180, -0.0) and at the poles.
@Suite("area geometry properties")
struct GeoAreaPropertyTests {
    /// Longitudes where boxes go wrong: both ends of the antimeridian, both zeros.
    static let edgeLongitudes: [Double] = [-180, 180, 0, -0.0, -179.9, 179.9, 90, -90]
    static let sphereKm2 = 4 * Double.pi * GreatCircle.earthRadiusKm * GreatCircle.earthRadiusKm

    private func longitude(_ random: inout SeededRandom) -> Double {
        Bool.random(using: &random)
            ? Self.edgeLongitudes.randomElement(using: &random) ?? 0 : Double.random(in: -180...180, using: &random)
    }

    private func band(_ minLat: Double, _ maxLat: Double) throws -> Double {
        try GeoArea(.bbox(minLon: -180, minLat: minLat, maxLon: 180, maxLat: maxLat)).squareKilometres
    }

    @Test("a box and its complement around the parallel add up to the full-width band, or one has no width")
    func complementsAddUp() throws {
        var random = SeededRandom(seed: 2)
        for _ in 0..<2000 {
            let (west, east) = (longitude(&random), longitude(&random))
            let lats = [Double.random(in: -90..<90, using: &random), Double.random(in: -90..<90, using: &random)]
            guard let minLat = lats.min(), let maxLat = lats.max(), minLat < maxLat else { continue }
            let there = try? GeoArea(.bbox(minLon: west, minLat: minLat, maxLon: east, maxLat: maxLat))
            let back = try? GeoArea(.bbox(minLon: east, minLat: minLat, maxLon: west, maxLat: maxLat))
            let span = Area.eastwardSpan(from: west, to: east)
            #expect((0...360).contains(span), "[\(west), \(east)]")
            switch (there, back) {
            case (let there?, let back?):
                let sum = there.squareKilometres + back.squareKilometres
                #expect(abs(sum - (try band(minLat, maxLat))) <= 1e-6 * sum + 1e-6, "[\(west), \(east)]")
            case (nil, let other?), (let other?, nil):
                #expect(span == 0 || span == 360, "only a same-meridian box is refused: [\(west), \(east)]")
                #expect(abs(other.squareKilometres - (try band(minLat, maxLat))) <= 1e-3, "the other is the full band")
            case (nil, nil):
                #expect(west == east, "both refused only when the ends are equal: [\(west), \(east)]")
            }
        }
    }

    @Test("the share of a parallel a box contains is its width over 360°")
    func containsFollowsWidth() throws {
        var random = SeededRandom(seed: 3)
        for _ in 0..<300 {
            let (west, east) = (longitude(&random), longitude(&random))
            guard let box = try? GeoArea(.bbox(minLon: west, minLat: -1, maxLon: east, maxLat: 1)) else { continue }
            let steps = 1440
            let inside = (0..<steps).filter { box.contains(lat: 0, lon: -180 + Double($0) * 0.25) }.count
            let expected = Area.eastwardSpan(from: west, to: east) / 0.25
            #expect(abs(Double(inside) - expected) <= 1.01, "[\(west), \(east)]: \(inside) of \(steps)")
            #expect(box.contains(lat: 0, lon: 180) == box.contains(lat: 0, lon: -180), "±180 is one meridian")
        }
    }

    @Test("full-width boxes are 360° wide: the whole Earth, a band, a polar cap")
    func fullWidth() throws {
        let world = try GeoArea(.bbox(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90))
        #expect(abs(world.squareKilometres - Self.sphereKm2) < 1)
        #expect(abs(world.squareKilometres - 510_065_622) < 1000)
        let equator = try GeoArea(.bbox(minLon: -180, minLat: -10, maxLon: 180, maxLat: 10))
        #expect(abs(equator.squareKilometres - Self.sphereKm2 * sin(10 * Double.pi / 180)) < 1)
        for lon in Self.edgeLongitudes {
            #expect(world.contains(lat: 90, lon: lon) && world.contains(lat: -90, lon: lon))
            #expect(equator.contains(lat: 0, lon: lon) && !equator.contains(lat: 10.5, lon: lon))
        }
        let wrapped = try GeoArea(.bbox(minLon: 180, minLat: 80, maxLon: 179.999, maxLat: 90))
        #expect(wrapped.squareKilometres > 0.99 * (try band(80, 90)), "180 eastward to 179.999 is almost all of it")
    }

    @Test("a box between one meridian and itself has no width and is refused")
    func sameMeridian() {
        let pairs: [(Double, Double)] = [(180, -180), (180, 180), (-180, -180), (0, -0.0), (-0.0, 0), (42, 42)]
        for (west, east) in pairs {
            #expect(throws: GeoAreaError.self, "[\(west), \(east)]") {
                try GeoArea(.bbox(minLon: west, minLat: -90, maxLon: east, maxLat: 90))
            }
        }
    }

    @Test("discs: surface grows with the radius up to the whole sphere; past half the circumference all is inside")
    func discs() throws {
        var previous = 0.0
        for radius in stride(from: 100_000.0, through: 25_000_000, by: 100_000) {
            let disc = try GeoArea(.circle(lon: 179.9, lat: 89.5, radiusMeters: radius))
            #expect(disc.squareKilometres >= previous && disc.squareKilometres <= Self.sphereKm2 * (1 + 1e-12))
            previous = disc.squareKilometres
        }
        let halfCircumference = Double.pi * GreatCircle.earthRadiusMeters
        for radius in [halfCircumference, halfCircumference * 1.5, 1e300] {
            let everything = try GeoArea(.circle(lon: 12, lat: -33, radiusMeters: radius))
            #expect(abs(everything.squareKilometres - Self.sphereKm2) < 1)
            #expect(everything.contains(lat: 33, lon: -168) && everything.contains(lat: 90, lon: 0))
        }
    }

    @Test("a disc whose radius crosses a pole or the antimeridian holds the points beyond it")
    func discsAcrossEdges() throws {
        let overPole = try GeoArea(.circle(lon: 0, lat: 89, radiusMeters: 300_000))
        #expect(overPole.contains(lat: 89.3, lon: 180) && overPole.contains(lat: 90, lon: -73))
        #expect(!overPole.contains(lat: 88, lon: 180))
        let overSouthPole = try GeoArea(.circle(lon: -180, lat: -89.5, radiusMeters: 200_000))
        #expect(overSouthPole.contains(lat: -89.5, lon: 0) && overSouthPole.contains(lat: -88.5, lon: 180))
        let overDateLine = try GeoArea(.circle(lon: -179.99, lat: 0, radiusMeters: 50_000))
        #expect(overDateLine.contains(lat: 0, lon: 179.9) && overDateLine.contains(lat: 0, lon: 180))
        #expect(!overDateLine.contains(lat: 0, lon: 179.5))
    }
}
