import Foundation
import LocstreamProtocol
import Testing

@testable import StreamCore

/// Grid covers over random shapes at the poles and the antimeridian: every point inside
/// lies in a covered cell, a cover is no larger than the rows the shape reaches, and the
/// area index holds at most `AreaIndex.wideRun` entries per row, whatever the shape.
@Suite("grid cover properties")
struct GridCoverPropertyTests {
    private static let radians = Double.pi / 180

    /// The point `distance` metres from (`lat`, `lon`) along `bearing` (radians).
    private func destination(lat: Double, lon: Double, bearing: Double, distance: Double) -> (Double, Double) {
        let (phi, delta) = (lat * Self.radians, distance / GreatCircle.earthRadiusMeters)
        let lat2 = asin(min(1, max(-1, sin(phi) * cos(delta) + cos(phi) * sin(delta) * cos(bearing))))
        let dLon = atan2(sin(bearing) * sin(delta) * cos(phi), cos(delta) - sin(phi) * sin(lat2))
        var lon2 = lon + dLon / Self.radians
        lon2 = lon2 > 180 ? lon2 - 360 : (lon2 < -180 ? lon2 + 360 : lon2)
        return (lat2 / Self.radians, lon2)
    }

    /// A random disc or box, centred near a pole, the antimeridian, or anywhere.
    private func shape(_ random: inout SeededRandom) -> Area {
        let centres: [(Double, Double)] = [(90, 0), (-90, 180), (89, -179.9), (85, 10), (0, 180), (-17, -179.99)]
        let (lat, lon) =
            Bool.random(using: &random)
            ? centres.randomElement(using: &random) ?? (0, 0)
            : (Double.random(in: -90...90, using: &random), Double.random(in: -180...180, using: &random))
        if Bool.random(using: &random) {
            return .circle(lon: lon, lat: lat, radiusMeters: Double.random(in: 1_000...3_000_000, using: &random))
        }
        let west = Double.random(in: -180...180, using: &random)
        let east = Bool.random(using: &random) ? [-180, 180, -0.0].randomElement(using: &random) ?? 0 : west + 5
        let minLat = min(lat, 89.9)
        return .bbox(minLon: west, minLat: minLat, maxLon: min(east, 180), maxLat: min(minLat + 0.05, 90))
    }

    @Test("every point inside a random disc or box lies in a covered cell", arguments: [0.1, 1.0])
    func coversHoldInsidePoints(cellDegrees: Double) throws {
        let grid = GeoGrid(cellDegrees: cellDegrees)
        var random = SeededRandom(seed: UInt64(cellDegrees * 100))
        var checked = 0
        for _ in 0..<300 {
            guard let area = try? GeoArea(shape(&random)) else { continue }
            let cover = grid.cover(area)
            var points: [(Double, Double)] = []
            switch area.area {
            case .circle(let lon, let lat, let radius):
                for _ in 0..<300 {
                    let bearing = Double.random(in: 0..<2 * .pi, using: &random)
                    let share = Bool.random(using: &random) ? 1 - 1e-12 : Double.random(in: 0...1, using: &random)
                    points.append(destination(lat: lat, lon: lon, bearing: bearing, distance: radius * share))
                }
            case .bbox(let minLon, let minLat, let maxLon, let maxLat):
                for lat in [minLat, maxLat, (minLat + maxLat) / 2] {
                    points += [minLon, maxLon, 180, -180, 0, -0.0].map { (lat, $0) }
                }
            }
            for _ in 0..<300 {
                points.append(
                    (Double.random(in: -90...90, using: &random), Double.random(in: -180...180, using: &random)))
            }
            for (lat, lon) in points where area.contains(lat: lat, lon: lon) {
                checked += 1
                #expect(cover.contains(grid.cell(lat: lat, lon: lon)), "\(area.area) at \(lat), \(lon)")
            }
        }
        #expect(checked > 20_000)
    }

    @Test("a disc near a pole covers what it reaches, not whole rows")
    func nearPoleCover() throws {
        let grid = GeoGrid(cellDegrees: 0.1)
        let disc = try GeoArea(.circle(lon: 10, lat: 85, radiusMeters: 300_000))
        let cover = grid.cover(disc)
        #expect(cover.count < cover.rows.count * grid.columns / 4, "\(cover.count) cells in \(cover.rows.count) rows")
        #expect(!cover.contains(grid.cell(lat: 85, lon: -170)))
    }

    @Test("the index holds at most wideRun entries per row: polar discs, full-width and nearly full-width boxes")
    func indexCostPerRow() throws {
        var index = AreaIndex(grid: GeoGrid(cellDegrees: 0.1))
        let shapes: [Area] = [
            .circle(lon: 0, lat: 90, radiusMeters: 280_000), .circle(lon: 123, lat: -89.5, radiusMeters: 280_000),
            .bbox(minLon: -180, minLat: 88, maxLon: 180, maxLat: 90),
            .bbox(minLon: -179, minLat: 88, maxLon: 179, maxLat: 90),
            .bbox(minLon: 179, minLat: -60, maxLon: 178.9, maxLat: -59),
            .circle(lon: 10, lat: 85, radiusMeters: 300_000),
        ]
        var ids: [UInt64] = []
        for shape in shapes {
            let area = try GeoArea(shape)
            let rows = index.grid.cover(area).rows.count
            let before = index.entryCount
            ids.append(index.insert(LocationStream(), area: area))
            #expect(index.entryCount - before <= rows * AreaIndex.wideRun, "\(shape)")
        }
        let atPole = Location(device: "d", lat: 89.99, lon: -77, ts: 0)
        #expect(
            index.matches(old: nil, new: atPole).count == 3, "both polar shapes at the north pole, and the full box")
        for id in ids { index.remove(id) }
        #expect(index.entryCount == 0 && index.count == 0 && index.watchedCells.isEmpty)
    }
}
