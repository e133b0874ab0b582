import Foundation
import LocstreamProtocol
import Observability
import Testing

@testable import StreamCore

/// Aggregated areas (`cells` frames): every frame checked against a brute-force count of
/// random devices in random wide and narrow areas, across the antimeridian and at the
/// poles; the cell limit; and the scope's switch with a recording sink.
@Suite("aggregated areas")
struct CellAggregationTests {
    /// What a client holds after applying `cells` frames: cell id → count and mean.
    private typealias ClientView = [String: CellCount]

    private static let cellSizes = [0.01, 0.05, 0.1, 0.5, 1, 3, 10, 45, 90]

    /// A random area for aggregation: a viewport of `AreaWorld`, the whole world, a wide box
    /// across the antimeridian, or a cap around a pole.
    private static func area(_ world: inout AreaWorld) -> Area {
        switch Int.random(in: 0..<4, using: &world.random) {
        case 0: world.area()
        case 1: .bbox(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90)
        case 2:
            .bbox(
                minLon: Double.random(in: 90...179, using: &world.random), minLat: -60,
                maxLon: Double.random(in: -179 ... -90, using: &world.random), maxLat: 60)
        default:
            .circle(
                lon: Double.random(in: -180...180, using: &world.random),
                lat: Bool.random(using: &world.random) ? 90 : -90,
                radiusMeters: Double.random(in: 50_000...3_000_000, using: &world.random))
        }
    }

    /// The counts a client should hold, computed the slow way: every device tested against
    /// the area, its cell found by the formula of docs/protocol.md.
    private static func bruteForce(_ positions: [String: Location], in area: GeoArea, cellDegrees: Double) -> [String:
        (count: Int, lat: Double, lon: Double)]
    {
        let rows = Int((180 / cellDegrees).rounded(.up))
        let columns = Int((360 / cellDegrees).rounded(.up))
        var cells: [String: (count: Int, lat: Double, lon: Double)] = [:]
        for location in positions.values where area.contains(lat: location.lat, lon: location.lon) {
            let row = min(Int(((location.lat + 90) / cellDegrees).rounded(.down)), rows - 1)
            let column = min(Int(((location.lon + 180) / cellDegrees).rounded(.down)), columns - 1)
            let sum = cells["\(row):\(column)", default: (0, 0, 0)]
            cells["\(row):\(column)"] = (sum.count + 1, sum.lat + location.lat, sum.lon + location.lon)
        }
        return cells.mapValues { ($0.count, $0.lat / Double($0.count), $0.lon / Double($0.count)) }
    }

    @Test("every cells frame, applied in turn, gives the brute-force counts and means (30 seeds × 40 rounds)")
    func oracle() throws {
        for seed in 1...30 {
            var world = AreaWorld(random: SeededRandom(seed: UInt64(seed)))
            let cellDegrees = Self.cellSizes[Int.random(in: 0..<Self.cellSizes.count, using: &world.random)]
            guard let geoArea = try? GeoArea(Self.area(&world)),
                let cells = try? AggregatedArea(geoArea, CellAggregation(cellDegrees: cellDegrees), maxCells: 100_000)
            else { continue }
            var positions: [String: Location] = [:]
            var view = CellsView()
            var client: ClientView = [:]
            var lostPending = false
            for round in 0..<40 {
                for index in 0..<60 where round == 0 || Int.random(in: 0..<3, using: &world.random) == 0 {
                    let device = "d\(index)"
                    let old = positions[device].map { (lat: $0.lat, lon: $0.lon) }
                    let new = old.map { world.move(from: $0) } ?? world.position()
                    positions[device] = Location(device: device, lat: new.lat, lon: new.lon, ts: Int64(round))
                }
                let frame = view.changes(to: cells.summaries(of: positions.values)).map {
                    cells.count($0.cell, $0.summary)
                }
                let context = "seed \(seed), round \(round), \(cellDegrees)°, \(geoArea.area)"
                if round > 0, Int.random(in: 0..<8, using: &world.random) == 0 {
                    view.markLost()
                    lostPending = true
                    continue
                }
                for cell in frame where !lostPending {
                    #expect(cell.count > 0 || client[cell.cell] != nil, "count 0 for a cell never shown: \(context)")
                    #expect(client[cell.cell] != cell, "an unchanged cell was resent: \(context)")
                }
                lostPending = false
                for cell in frame { client[cell.cell] = cell.count == 0 ? nil : cell }
                let expected = Self.bruteForce(positions, in: geoArea, cellDegrees: cellDegrees)
                #expect(Set(client.keys) == Set(expected.keys), "\(context)")
                for (name, want) in expected {
                    guard let got = client[name] else { continue }
                    #expect(got.count == want.count, "\(name): \(context)")
                    #expect(
                        abs(got.lat - want.lat) <= 1.1e-6 && abs(got.lon - want.lon) <= 1.1e-6, "\(name): \(context)")
                }
            }
        }
    }

    @Test("a cell size that would exceed --max-cells for the area is refused; the world is allowed")
    func cellLimit() throws {
        let world = try GeoArea(.bbox(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90))
        #expect(throws: GeoAreaError.self) {
            try AggregatedArea(world, CellAggregation(cellDegrees: 2), maxCells: 10_000)
        }
        let coarse = try AggregatedArea(world, CellAggregation(cellDegrees: 3), maxCells: 10_000)
        #expect(coarse.grid.cover(world).count == 7_200)
        let berlin = try GeoArea(.bbox(minLon: 13.08, minLat: 52.33, maxLon: 13.76, maxLat: 52.68))
        #expect(throws: GeoAreaError.self) {
            try AggregatedArea(berlin, CellAggregation(cellDegrees: 0.0001), maxCells: 10_000)
        }
        let pole = try GeoArea(.circle(lon: 0, lat: 90, radiusMeters: 200_000))
        #expect((try? AggregatedArea(pole, CellAggregation(cellDegrees: 1), maxCells: 720)) != nil)
        #expect((try? AggregatedArea(pole, CellAggregation(cellDegrees: 1), maxCells: 359)) == nil)
    }

    @Test("an emptied cell is sent once with count 0 at its centre, and the last row and column hold 90 and 180")
    func emptiedCell() throws {
        let cells = try AggregatedArea(
            GeoArea(.bbox(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90)), CellAggregation(cellDegrees: 10),
            maxCells: 10_000)
        var view = CellsView()
        let pole = Location(device: "a", lat: 90, lon: 180, ts: 1)
        let first = view.changes(to: cells.summaries(of: [pole])).map { cells.count($0.cell, $0.summary) }
        #expect(first == [CellCount(cell: "17:35", lat: 90, lon: 180, count: 1)])
        let moved = Location(device: "a", lat: -0.5, lon: -179.5, ts: 2)
        let second = view.changes(to: cells.summaries(of: [moved])).map { cells.count($0.cell, $0.summary) }
        #expect(
            second == [
                CellCount(cell: "8:0", lat: -0.5, lon: -179.5, count: 1),
                CellCount(cell: "17:35", lat: 85, lon: 175, count: 0),
            ])
        #expect(view.changes(to: cells.summaries(of: [moved])).isEmpty)
    }

    @Test("a switch from an aggregated area to devices: no cells frame after the new ack")
    func switchFromCells() async throws {
        let broker = LocalBroker(historySize: 10)
        let sink = RecordingSink()
        let scope = SubscriptionScope(
            sink: sink, node: Node.testing(broker: broker, metrics: StreamMetrics(registry: MetricsRegistry())))
        _ = try await broker.publish([Location(device: "a", lat: 52.5, lon: 13.4, ts: 1)])
        let world = Area.bbox(minLon: -180, minLat: -90, maxLon: 180, maxLat: 90)
        try await scope.subscribeAndWait(
            SubscribeRequest(
                sub: "C", target: .area(world), minIntervalMs: 100, aggregate: CellAggregation(cellDegrees: 10)))
        #expect(
            sink.texts.prefix(2) == [
                #"{"op":"subscribed","sub":"C","restarted":false,"snapshot":1}"#,
                #"{"op":"cells","sub":"C","cells":[{"cell":"14:19","lat":52.5,"lon":13.4,"count":1}]}"#,
            ])
        _ = try await broker.publish([Location(device: "a", lat: -52.5, lon: 13.4, ts: 2)])
        #expect(await sink.waitTexts { $0.count == 3 })
        #expect(sink.texts.last?.hasPrefix(#"{"op":"cells","sub":"C","cells":[{"cell":"3:19""#) == true)
        try await scope.subscribeAndWait(SubscribeRequest(sub: "D", target: .devices(["a"])))
        for ts in 3...8 {
            _ = try await broker.publish([Location(device: "a", lat: Double(ts), lon: 13.4, ts: Int64(ts))])
        }
        try await Task.sleep(for: .milliseconds(300))
        let texts = sink.texts
        let ack = try #require(texts.firstIndex { $0.contains(#""op":"subscribed","sub":"D""#) })
        #expect(texts[ack...].allSatisfy { !$0.contains(#""op":"cells""#) }, "\(texts)")
        scope.end()
    }
}
