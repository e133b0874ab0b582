/// Which devices' last-known positions lie in which grid cell: what makes an area
/// snapshot cost the devices in the covered cells, not every device the broker knows.
///
/// Moving a device costs two dictionary updates when it changes cell, nothing when it
/// stays. Not thread-safe: the broker keeps it under its lock.
struct PositionIndex {
    let grid: GeoGrid
    private var cells: [Int: Set<String>] = [:]

    init(grid: GeoGrid) { self.grid = grid }

    /// Records that `device` moved from `old` (nil: first position) to `new`.
    mutating func move(_ device: String, from old: (lat: Double, lon: Double)?, to new: (lat: Double, lon: Double)) {
        let newCell = grid.cell(lat: new.lat, lon: new.lon)
        if let old {
            guard grid.cell(lat: old.lat, lon: old.lon) != newCell else { return }
            remove(device, at: old)
        }
        cells[newCell, default: []].insert(device)
    }

    /// Forgets `device`, last known at `position`.
    mutating func remove(_ device: String, at position: (lat: Double, lon: Double)) {
        let cell = grid.cell(lat: position.lat, lon: position.lon)
        cells[cell]?.remove(device)
        if cells[cell]?.isEmpty == true { cells[cell] = nil }
    }

    /// The devices in the cells `area` covers: a superset of those inside it.
    func candidates(in area: GeoArea) -> [String] {
        candidateCells(in: area).flatMap { $0 }
    }

    /// The devices of each non-empty cell `area` covers, a set per cell, so a reader that
    /// stops early (a query's limit) pays only for the cells it read.
    func candidateCells(in area: GeoArea) -> [Set<String>] {
        let cover = grid.cover(area)
        guard cover.count <= cells.count else {
            return cells.filter { cover.contains($0.key) }.map(\.value)
        }
        return cover.cells.compactMap { cells[$0] }
    }
}
