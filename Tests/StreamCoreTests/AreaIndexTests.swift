import LocstreamProtocol
import Testing

@testable import StreamCore

/// The area index: enter, stay and leave found from the old and new cell, and nothing
/// left behind on removal.
@Suite("area index")
struct AreaIndexTests {
    private func location(_ lat: Double, _ lon: Double) -> Location {
        Location(device: "d", lat: lat, lon: lon, ts: 0)
    }

    private func kinds(_ matches: [(LocationStream, Publication.Kind)]) -> [Publication.Kind] {
        matches.map(\.1)
    }

    @Test("enter, stay, leave and outside, across cells")
    func transitions() throws {
        var index = AreaIndex(grid: GeoGrid(cellDegrees: 0.1))
        let stream = LocationStream()
        _ = index.insert(stream, area: try GeoArea(.bbox(minLon: 13.0, minLat: 52.0, maxLon: 13.5, maxLat: 52.5)))
        #expect(kinds(index.matches(old: nil, new: location(52.2, 13.2))) == [.location])
        #expect(kinds(index.matches(old: location(52.2, 13.2), new: location(52.3, 13.4))) == [.location])
        #expect(kinds(index.matches(old: location(52.3, 13.4), new: location(40, 2))) == [.leave])
        #expect(kinds(index.matches(old: location(40, 2), new: location(41, 2))).isEmpty)
        #expect(kinds(index.matches(old: location(52.45, 13.45), new: location(52.45, 13.55))) == [.leave])
        #expect(kinds(index.matches(old: location(52.45, 13.55), new: location(52.45, 13.56))).isEmpty)
    }

    @Test("only areas registered in the two cells are visited, each once")
    func costFollowsMatches() throws {
        var index = AreaIndex(grid: GeoGrid(cellDegrees: 0.1))
        for step in 0..<1000 {
            let lon = -170 + Double(step) * 0.3
            _ = index.insert(
                LocationStream(), area: try GeoArea(.bbox(minLon: lon, minLat: 0, maxLon: lon + 0.2, maxLat: 0.2)))
        }
        let big = LocationStream()
        let (id, firstCells) = index.insert(
            big, area: try GeoArea(.bbox(minLon: 10, minLat: 10, maxLon: 11, maxLat: 11)))
        #expect(firstCells.count == 121 && firstCells.allSatisfy(index.isWatched))
        let moves = index.matches(old: location(10.05, 10.05), new: location(10.95, 10.95))
        #expect(moves.count == 1 && moves.first?.0 === big)
        #expect(Set(index.remove(id)) == Set(firstCells), "the cells it alone covered are released")
        #expect(!firstCells.contains(where: index.isWatched))
        #expect(index.matches(old: location(10.05, 10.05), new: location(10.95, 10.95)).isEmpty)
        #expect(index.count == 1000)
    }
}
