import Foundation

/// The spatial index's cells: a uniform latitude/longitude grid.
///
/// Why a uniform grid rather than geohash or S2: a point's cell is two divisions and a
/// multiply (no bit interleaving, no projection), a box or disc maps to a rectangle of
/// rows and columns whose membership test is two range checks, and the antimeridian is
/// just a column range that wraps. Geohash cells are the same rectangles in a
/// different numbering; S2's equal-area cells only pay off for very large or polar
/// areas, which `--max-area-km2` keeps out.
///
/// The cost: cells are `cellDegrees` wide in both directions, so they shrink in
/// east-west extent towards the poles (a 0.1° cell is about 11 × 11 km at the equator
/// and 11 × 2 km at 80°). An area near a pole therefore covers more cells, and one that
/// contains a pole covers every column of its rows: registering it costs one entry per
/// cell (bounded by `--max-area-km2`). Per publication the cost is one lookup in the
/// cell of the old and of the new position, plus an exact test of each area registered
/// there; a city-sized viewport of 40 × 30 km covers about 20 cells at 0.1°.
public struct GeoGrid: Sendable, Equatable {
    /// The side of a cell in degrees.
    public let cellDegrees: Double
    /// Rows (latitude bands) and columns (longitude bands).
    let rows: Int
    let columns: Int

    /// A grid of `cellDegrees` cells (0.1° unless told; clamped to 0.01°…10°).
    public init(cellDegrees: Double = 0.1) {
        self.cellDegrees = min(max(cellDegrees, 0.01), 10)
        rows = Int((180 / self.cellDegrees).rounded(.up))
        columns = Int((360 / self.cellDegrees).rounded(.up))
    }

    /// The cell holding a point (degrees); the poles and 180° belong to the last band.
    public func cell(lat: Double, lon: Double) -> Int {
        row(lat) * columns + column(lon)
    }

    /// The cells an area covers: every cell holding a point inside it.
    public func cover(_ area: GeoArea) -> CellCover {
        let bounds = GeoBounds(area)
        let rowRange = row(bounds.minLat)...row(bounds.maxLat)
        guard let lon = bounds.lon else { return CellCover(columns: columns, rows: rowRange, spans: [0...columns - 1]) }
        let spans =
            lon.min <= lon.max
            ? [column(lon.min)...column(lon.max)]
            : [column(lon.min)...columns - 1, 0...column(lon.max)]
        return CellCover(columns: columns, rows: rowRange, spans: spans)
    }

    private func row(_ lat: Double) -> Int {
        min(max(Int(((lat + 90) / cellDegrees).rounded(.down)), 0), rows - 1)
    }

    private func column(_ lon: Double) -> Int {
        min(max(Int(((lon + 180) / cellDegrees).rounded(.down)), 0), columns - 1)
    }
}

/// The cells an area covers: a band of rows and one or two column spans (two when it
/// wraps across the antimeridian).
public struct CellCover: Sendable, Equatable {
    let columns: Int
    let rows: ClosedRange<Int>
    let spans: [ClosedRange<Int>]

    /// Whether `cell` is covered: two range checks.
    public func contains(_ cell: Int) -> Bool {
        rows.contains(cell / columns) && spans.contains { $0.contains(cell % columns) }
    }

    /// Every covered cell.
    public var cells: [Int] {
        rows.flatMap { row in spans.flatMap { span in span.map { row * columns + $0 } } }
    }

    /// How many cells are covered.
    public var count: Int { rows.count * spans.reduce(0) { $0 + $1.count } }
}
