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
/// and 11 × 2 km at 80°). An area near a pole therefore spans more columns, and one that
/// contains a pole spans every column of its rows. A cover is therefore kept as one run
/// of columns per row (two integers, whatever its width), and the area index registers a
/// wide run once per row rather than once per cell. Per publication the cost is one
/// lookup in the cell of the old and of the new position (and in their rows' wide runs),
/// plus an exact test of each area found there; a city-sized viewport of 40 × 30 km
/// covers about 20 cells at 0.1°.
public struct GeoGrid: Sendable, Equatable {
    /// The side of a cell in degrees.
    public let cellDegrees: Double
    /// Rows (latitude bands) and columns (longitude bands).
    let rows: Int
    let columns: Int

    /// A grid of `cellDegrees` cells (0.1° unless told; clamped to 0.01°…10°).
    public init(cellDegrees: Double = 0.1) {
        self.init(exactly: min(max(cellDegrees, 0.01), 10))
    }

    /// A grid of exactly `cellDegrees` cells (positive, at most 180): an aggregated
    /// subscription's, which may be far finer or coarser than the index's.
    init(exactly cellDegrees: Double) {
        self.cellDegrees = cellDegrees
        rows = Int((180 / cellDegrees).rounded(.up))
        columns = Int((360 / cellDegrees).rounded(.up))
    }

    /// The cell holding a point (degrees); the poles and 180° belong to the last band.
    public func cell(lat: Double, lon: Double) -> Int {
        row(lat) * columns + column(lon)
    }

    /// The cells an area covers: every cell holding a point inside it. Row by row, the
    /// columns the area reaches at that row's latitudes, so a disc near a pole covers
    /// what it reaches there, and a row it reaches all around is one run.
    public func cover(_ area: GeoArea) -> CellCover {
        let bounds = GeoBounds(area)
        let rows = row(bounds.minLat)...row(bounds.maxLat)
        let runs = rows.map { row in
            // The row's band, a hair wider, so a point rounded into the row is in it.
            let low = max(-90 + Double(row) * cellDegrees - 1e-9, bounds.minLat)
            let high = min(-90 + Double(row + 1) * cellDegrees + 1e-9, bounds.maxLat)
            return bounds.longitudes(from: low, to: high).map(run) ?? ColumnRun(start: 0, count: columns)
        }
        return CellCover(columns: columns, rows: rows, runs: runs)
    }

    /// The columns from `west` eastward to `east` (wrapping when `west > east`). The
    /// first and last columns meet at ±180, one meridian: a run holding one holds both.
    private func run(_ longitudes: GeoBounds.Longitudes) -> ColumnRun {
        let (start, end) = (column(longitudes.west), column(longitudes.east))
        let wraps = longitudes.west > longitudes.east
        guard !wraps || end < start - 1 else { return ColumnRun(start: 0, count: columns) }
        let run = ColumnRun(start: start, count: wraps ? columns - start + end + 1 : end - start + 1)
        switch (run.contains(0, columns: columns), run.contains(columns - 1, columns: columns)) {
        case (true, false): return ColumnRun(start: columns - 1, count: run.count + 1)
        case (false, true): return ColumnRun(start: run.start, count: run.count + 1)
        default: return run
        }
    }

    /// The row (latitude band) of `lat`; the pole belongs to the last.
    func row(_ lat: Double) -> Int {
        min(max(Int(((lat + 90) / cellDegrees).rounded(.down)), 0), rows - 1)
    }

    private func column(_ lon: Double) -> Int {
        min(max(Int(((lon + 180) / cellDegrees).rounded(.down)), 0), columns - 1)
    }
}

/// A run of columns from `start` eastward, wrapping from the last column to the first.
struct ColumnRun: Sendable, Equatable {
    let start: Int
    let count: Int

    /// Whether the run holds `column` of a grid `columns` wide.
    func contains(_ column: Int, columns: Int) -> Bool {
        (column - start + columns) % columns < count
    }
}

/// The cells an area covers: a band of rows, and in each row one run of columns (it
/// may wrap across the antimeridian, or go all around). Its size is two integers per
/// row, whatever the number of cells.
public struct CellCover: Sendable, Equatable {
    let columns: Int
    let rows: ClosedRange<Int>
    /// The run of each row, from `rows.lowerBound` on.
    let runs: [ColumnRun]

    /// The run of columns covered in `row` (which must be in `rows`).
    func run(inRow row: Int) -> ColumnRun { runs[row - rows.lowerBound] }

    /// Whether `cell` is covered.
    public func contains(_ cell: Int) -> Bool {
        let row = cell / columns
        return rows.contains(row) && run(inRow: row).contains(cell % columns, columns: columns)
    }

    /// Every covered cell, row by row, computed as it is read.
    public var cells: some Sequence<Int> { rows.lazy.flatMap(cells(inRow:)) }

    /// The covered cells of `row` (which must be in `rows`), computed as they are read.
    func cells(inRow row: Int) -> LazyMapSequence<Range<Int>, Int> {
        let (run, columns) = (run(inRow: row), columns)
        return (0..<run.count).lazy.map { row * columns + (run.start + $0) % columns }
    }

    /// How many cells are covered.
    public var count: Int { runs.reduce(0) { $0 + $1.count } }
}
