import Auth
import Foundation
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
        var firstCells: [Int] = []
        let id = index.insert(
            big, area: try GeoArea(.bbox(minLon: 10, minLat: 10, maxLon: 11, maxLat: 11))
        ) { firstCells.append($0) }
        #expect(firstCells.count == 121 && firstCells.allSatisfy(index.isWatched))
        let moves = index.matches(old: location(10.05, 10.05), new: location(10.95, 10.95))
        #expect(moves.count == 1 && moves.first?.0 === big)
        var lastCells: [Int] = []
        index.remove(id) { lastCells.append($0) }
        #expect(Set(lastCells) == Set(firstCells), "the cells it alone covered are released")
        #expect(!firstCells.contains(where: index.isWatched))
        #expect(index.matches(old: location(10.05, 10.05), new: location(10.95, 10.95)).isEmpty)
        #expect(index.count == 1000)
    }

    @Test("an area's rights hide a device entirely, locations and leaves, and can be narrowed later")
    func rights() throws {
        var index = AreaIndex(grid: GeoGrid(cellDegrees: 0.1))
        let claims = Claims(subject: "t", expiresAt: .distantFuture, devicePatterns: ["veh-*"], areas: true)
        let id = index.insert(
            LocationStream(), area: try GeoArea(.bbox(minLon: 13, minLat: 52, maxLon: 14, maxLat: 53)),
            rights: DeviceRights(claims))
        func kinds(_ device: String, from old: (Double, Double)?, to new: (Double, Double)) -> [Publication.Kind] {
            let old = old.map { Location(device: device, lat: $0.0, lon: $0.1, ts: 0) }
            return index.matches(old: old, new: Location(device: device, lat: new.0, lon: new.1, ts: 0)).map(\.1)
        }
        #expect(kinds("veh-1", from: nil, to: (52.5, 13.5)) == [.location])
        #expect(kinds("secret-9", from: nil, to: (52.5, 13.5)).isEmpty)
        #expect(kinds("secret-9", from: (52.5, 13.5), to: (40, 2)).isEmpty, "no leave either")
        #expect(kinds("veh-1", from: (52.5, 13.5), to: (40, 2)) == [.leave])
        index.restrict(id, to: DeviceRights(Claims(subject: "t", expiresAt: .distantFuture, devicePatterns: ["veh-2"])))
        #expect(
            kinds("veh-1", from: nil, to: (52.5, 13.5)).isEmpty
                && kinds("veh-2", from: nil, to: (52.5, 13.5)) == [.location])
        #expect(
            DeviceRights(Claims(subject: "t", expiresAt: .distantFuture, devicePatterns: ["x", "*"])).allows("any"))
        #expect(DeviceRights.everyDevice.allows("any") && !DeviceRights(claims).allows("veh"))
    }
}
