import LocstreamProtocol

/// The geometry of an aggregated area subscription: its area and the grid of its cells,
/// aligned at 180° W and 90° S, and how devices are counted in them.
struct AggregatedArea: Sendable {
    /// The devices of one cell: how many, and their mean position rounded to 6 decimals.
    struct Summary: Sendable, Equatable {
        var count: Int
        var lat: Double
        var lon: Double
    }

    let area: GeoArea
    let grid: GeoGrid

    /// `area` cut into cells of `aggregation`'s size; refused when it covers more than
    /// `maxCells` of them (counted row by row, as the area reaches them).
    init(_ area: GeoArea, _ aggregation: CellAggregation, maxCells: Int) throws(GeoAreaError) {
        let grid = GeoGrid(exactly: aggregation.cellDegrees)
        let bounds = GeoBounds(area)
        let rows = grid.row(bounds.maxLat) - grid.row(bounds.minLat) + 1
        let cells = rows > maxCells ? rows : grid.cover(area).count
        guard cells <= maxCells else {
            throw GeoAreaError(
                "the area covers \(rows > maxCells ? "more than \(maxCells)" : "\(cells)") cells of \(aggregation.cellDegrees)°; at most \(maxCells) are allowed: choose a larger cell_deg"
            )
        }
        self.area = area
        self.grid = grid
    }

    /// The devices of `locations` inside the area, counted per cell. Sums are kept in
    /// units of 1e-7 degrees, so the mean does not depend on the order of `locations`.
    func summaries(of locations: some Sequence<Location>) -> [Int: Summary] {
        var sums: [Int: (count: Int, lat: Int64, lon: Int64)] = [:]
        for location in locations where area.contains(location) {
            let cell = grid.cell(lat: location.lat, lon: location.lon)
            let sum = sums[cell, default: (0, 0, 0)]
            sums[cell] = (sum.count + 1, sum.lat + Self.units(location.lat), sum.lon + Self.units(location.lon))
        }
        return sums.mapValues { sum in
            Summary(count: sum.count, lat: Self.mean(sum.lat, sum.count), lon: Self.mean(sum.lon, sum.count))
        }
    }

    /// How `cell` appears in a `cells` frame: its summary, or count 0 at its centre.
    func count(_ cell: Int, _ summary: Summary?) -> CellCount {
        let (row, column) = cell.quotientAndRemainder(dividingBy: grid.columns)
        let name = "\(row):\(column)"
        if let summary { return CellCount(cell: name, lat: summary.lat, lon: summary.lon, count: summary.count) }
        let size = grid.cellDegrees
        let south = -90 + Double(row) * size
        let west = -180 + Double(column) * size
        return CellCount(
            cell: name, lat: (south + min(south + size, 90)) / 2, lon: (west + min(west + size, 180)) / 2, count: 0)
    }

    private static func units(_ degrees: Double) -> Int64 { Int64((degrees * 1e7).rounded()) }

    private static func mean(_ units: Int64, _ count: Int) -> Double {
        (Double(units) / Double(count) / 10).rounded() / 1e6
    }
}
