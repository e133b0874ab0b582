import Auth
import Foundation
import LocstreamProtocol
import Testing

@testable import StreamCore

/// Geo queries of the embedded broker (`GET /v1/devices`) against a brute-force oracle:
/// random devices around a city, the antimeridian and both poles, random boxes and discs
/// (wide ones too), random limits and token rights.
@Suite("geo queries against a brute-force oracle")
struct PositionQueryTests {
    @Test("random devices, areas, limits and rights", arguments: [0.1, 1.0])
    func matchesOracle(cellDegrees: Double) async throws {
        var world = AreaWorld(random: SeededRandom(seed: UInt64(cellDegrees * 1000) + 7))
        let broker = LocalBroker(historySize: 1, grid: GeoGrid(cellDegrees: cellDegrees))
        var positions: [String: Location] = [:]
        for _ in 0..<2 {
            let batch = (0..<400).map { index in
                let position = world.position()
                return Location(device: "d\(index % 300)-\(index % 3)", lat: position.lat, lon: position.lon, ts: 0)
            }
            for stored in try await broker.publish(batch) { positions[stored.location.device] = stored.location }
        }
        let rights = [
            DeviceRights.everyDevice,
            DeviceRights(Claims(subject: "t", expiresAt: Date() + 60, devicePatterns: ["d1*", "*-2"], areas: true)),
        ]
        var truncations = 0
        var nonEmpty = 0
        for round in 0..<300 {
            let area = try GeoArea(round % 10 == 0 ? wide(&world.random) : world.area())
            let limit = [1, 3, 10, 1000][round % 4]
            let query = PositionQuery(area: area, limit: limit, rights: rights[round % 2])
            let result = try await broker.positions(matching: query)
            let expected = positions.values.filter { area.contains($0) && query.rights.allows($0.device) }
            #expect(result.truncated == (expected.count > limit), "round \(round)")
            #expect(result.matches.count == min(limit, expected.count), "round \(round)")
            let found = result.matches.map(\.update.location.device)
            #expect(Set(found).count == found.count, "round \(round): a device twice")
            #expect(Set(found).isSubset(of: Set(expected.map(\.device))), "round \(round)")
            if case .circle(let lon, let lat, _) = area.area {
                let distance = { (location: Location) in
                    GreatCircle.meters(fromLat: lat, lon: lon, toLat: location.lat, lon: location.lon)
                }
                let nearest = expected.sorted { (distance($0), $0.device) < (distance($1), $1.device) }.prefix(limit)
                #expect(found == nearest.map(\.device), "round \(round): nearest first")
                #expect(
                    zip(result.matches, nearest).allSatisfy { abs(($0.distanceMeters ?? -1) - distance($1)) < 1e-6 },
                    "round \(round): distances")
            } else {
                #expect(result.matches.allSatisfy { $0.distanceMeters == nil }, "round \(round)")
            }
            if result.truncated { truncations += 1 }
            if !expected.isEmpty { nonEmpty += 1 }
        }
        #expect(truncations > 30 && nonEmpty > 100, "the areas should find devices, and often more than the limit")
    }

    /// A wide area: most of a hemisphere, a band around a pole, or the whole world.
    private func wide(_ random: inout SeededRandom) -> Area {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: .bbox(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90)
        case 1: .bbox(minLon: 170, minLat: -60, maxLon: -170, maxLat: 89)
        case 2: .circle(lon: 0, lat: 90, radiusMeters: 3_000_000)
        default: .circle(lon: 179.9, lat: -17, radiusMeters: Double.random(in: 1e5...2e7, using: &random))
        }
    }
}
