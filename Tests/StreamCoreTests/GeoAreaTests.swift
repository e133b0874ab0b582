import Foundation
import LocstreamProtocol
import Testing

@testable import StreamCore

/// The geometry of areas and their grid covers: antimeridian, poles, radius near the
/// poles, degenerate shapes. A cover must hold the cell of every point inside.
@Suite("area geometry and grid")
struct GeoAreaTests {
    let grid = GeoGrid()

    private func area(_ area: Area) throws -> GeoArea { try GeoArea(area) }

    /// Every point of a fine lattice that is inside `area` lies in a covered cell.
    private func coverHoldsEveryInsidePoint(_ area: GeoArea, on grid: GeoGrid) -> Bool {
        let cover = grid.cover(area)
        for latStep in 0...360 {
            for lonStep in 0...720 {
                let lat = -90 + Double(latStep) * 0.5
                let lon = -180 + Double(lonStep) * 0.5
                if area.contains(lat: lat, lon: lon), !cover.contains(grid.cell(lat: lat, lon: lon)) { return false }
            }
        }
        return true
    }

    @Test("a bbox with minLon > maxLon wraps across the antimeridian")
    func antimeridianBox() throws {
        let fiji = try area(.bbox(minLon: 177, minLat: -19.2, maxLon: -178, maxLat: -15.7))
        #expect(fiji.contains(lat: -17, lon: 179.5) && fiji.contains(lat: -17, lon: -179.5))
        #expect(fiji.contains(lat: -17, lon: 180) && fiji.contains(lat: -17, lon: -180))
        #expect(!fiji.contains(lat: -17, lon: 0) && !fiji.contains(lat: -17, lon: -177))
        let approximate: Double = 5 * 111.2 * cos(17.45 * Double.pi / 180) * 3.5 * 111.2
        #expect(abs(fiji.squareKilometres - approximate) < 2000)
        let cover = grid.cover(fiji)
        #expect(cover.contains(grid.cell(lat: -17, lon: 179.99)) && cover.contains(grid.cell(lat: -17, lon: -179.99)))
        #expect(!cover.contains(grid.cell(lat: -17, lon: 0)))
        #expect(cover.count < 2000, "two narrow spans, not the whole band")
    }

    @Test("a circle near the antimeridian wraps too")
    func antimeridianCircle() throws {
        let circle = try area(.circle(lon: 179.95, lat: 0, radiusMeters: 20_000))
        #expect(circle.contains(lat: 0, lon: -179.9))
        #expect(grid.cover(circle).contains(grid.cell(lat: 0, lon: -179.9)))
        #expect(coverHoldsEveryInsidePoint(circle, on: GeoGrid(cellDegrees: 1)))
    }

    @Test("a circle around a pole covers every longitude; a device at the pole is inside")
    func poleCircle() throws {
        let north = try area(.circle(lon: 40, lat: 89.9, radiusMeters: 50_000))
        #expect(north.contains(lat: 90, lon: -120) && north.contains(lat: 89.8, lon: -140))
        let cover = grid.cover(north)
        #expect(cover.contains(grid.cell(lat: 89.8, lon: -140)) && cover.contains(grid.cell(lat: 90, lon: 180)))
        let south = try area(.circle(lon: 0, lat: -90, radiusMeters: 100_000))
        #expect(south.contains(lat: -89.5, lon: 123) && !south.contains(lat: -88, lon: 0))
    }

    @Test("a radius near (not around) a pole spreads far in longitude, and the cover holds it")
    func radiusNearPole() throws {
        let circle = try area(.circle(lon: 10, lat: 85, radiusMeters: 300_000))
        #expect(circle.contains(lat: 85.5, lon: 40), "30° of longitude is only ~290 km up here")
        #expect(!circle.contains(lat: 85, lon: 60))
        #expect(coverHoldsEveryInsidePoint(circle, on: GeoGrid(cellDegrees: 0.5)))
        #expect(coverHoldsEveryInsidePoint(circle, on: GeoGrid(cellDegrees: 1)))
    }

    @Test("a bbox touching a pole includes the pole")
    func poleBox() throws {
        let box = try area(.bbox(minLon: -10, minLat: 88, maxLon: 10, maxLat: 90))
        #expect(box.contains(lat: 90, lon: 0))
        #expect(grid.cover(box).contains(grid.cell(lat: 90, lon: 0)))
    }

    @Test("covers hold every inside point for assorted shapes")
    func coversAreComplete() throws {
        let shapes: [Area] = [
            .bbox(minLon: 13.08, minLat: 52.33, maxLon: 13.76, maxLat: 52.68),
            .bbox(minLon: 170, minLat: -5, maxLon: -170, maxLat: 5),
            .circle(lon: -179.9, lat: 60, radiusMeters: 200_000),
            .circle(lon: 0, lat: -89, radiusMeters: 250_000),
        ]
        for shape in shapes {
            #expect(coverHoldsEveryInsidePoint(try area(shape), on: GeoGrid(cellDegrees: 1)), "\(shape)")
        }
    }

    @Test("surfaces: a 1° box at the equator and a 10 km circle")
    func surfaces() throws {
        let box = try area(.bbox(minLon: 0, minLat: 0, maxLon: 1, maxLat: 1))
        #expect(abs(box.squareKilometres - 12_364) < 50)
        let circle = try area(.circle(lon: 0, lat: 0, radiusMeters: 10_000))
        #expect(abs(circle.squareKilometres - Double.pi * 100) < 1)
    }

    @Test("degenerate and out-of-range areas are refused")
    func degenerate() {
        let bad: [Area] = [
            .bbox(minLon: 5, minLat: 1, maxLon: 5, maxLat: 2), .bbox(minLon: 1, minLat: 3, maxLon: 2, maxLat: 3),
            .bbox(minLon: 1, minLat: 3, maxLon: 2, maxLat: 1), .bbox(minLon: -181, minLat: 0, maxLon: 2, maxLat: 1),
            .bbox(minLon: 0, minLat: 0, maxLon: .nan, maxLat: 1), .circle(lon: 0, lat: 0, radiusMeters: 0),
            .circle(lon: 0, lat: 0, radiusMeters: -1), .circle(lon: 0, lat: 0, radiusMeters: .infinity),
            .circle(lon: 200, lat: 0, radiusMeters: 10), .circle(lon: 0, lat: .nan, radiusMeters: 10),
        ]
        for shape in bad {
            #expect(throws: GeoAreaError.self, "\(shape)") { try GeoArea(shape) }
        }
    }

    @Test("great-circle distance across the antimeridian and the pole")
    func distances() {
        #expect(abs(GreatCircle.meters(fromLat: 0, lon: 179.5, toLat: 0, lon: -179.5) - 111_195) < 10)
        #expect(abs(GreatCircle.meters(fromLat: 89, lon: 0, toLat: 89, lon: 180) - 222_390) < 20)
    }
}
