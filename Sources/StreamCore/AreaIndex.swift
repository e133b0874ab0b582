import LocstreamProtocol

/// The area subscriptions of a hub, registered on the grid cells they cover.
///
/// A publication is matched by looking up the cell of the device's new position and
/// the cell of its old one, then testing each area registered there exactly: inside
/// at the new position is a location (enter or stay), inside at the old position only
/// is a leave. Its cost is the number of areas registered in those two cells, not the
/// number of area subscriptions. Registering costs one entry per covered cell.
///
/// Not thread-safe: the hub keeps it under its lock.
struct AreaIndex {
    /// One area subscription.
    private struct Watcher {
        let id: UInt64
        let area: GeoArea
        let cover: CellCover
        let stream: LocationStream
    }

    let grid: GeoGrid
    private var cells: [Int: [Watcher]] = [:]
    private var covers: [UInt64: CellCover] = [:]
    private var nextID: UInt64 = 0

    init(grid: GeoGrid) { self.grid = grid }

    /// The number of area subscriptions registered.
    var count: Int { covers.count }

    /// Registers `stream` on every cell `area` covers. Returns its id for `remove`, and
    /// the cells that had no area registered before.
    mutating func insert(_ stream: LocationStream, area: GeoArea) -> (id: UInt64, firstCells: [Int]) {
        nextID += 1
        let watcher = Watcher(id: nextID, area: area, cover: grid.cover(area), stream: stream)
        covers[watcher.id] = watcher.cover
        var firstCells: [Int] = []
        for cell in watcher.cover.cells {
            if cells[cell] == nil { firstCells.append(cell) }
            cells[cell, default: []].append(watcher)
        }
        return (watcher.id, firstCells)
    }

    /// Removes the area subscription `id` from every cell it covered; returns the cells
    /// left with no area registered.
    mutating func remove(_ id: UInt64) -> [Int] {
        guard let cover = covers.removeValue(forKey: id) else { return [] }
        var lastCells: [Int] = []
        for cell in cover.cells {
            guard var watchers = cells[cell], let index = watchers.firstIndex(where: { $0.id == id }) else { continue }
            watchers.remove(at: index)
            cells[cell] = watchers.isEmpty ? nil : watchers
            if watchers.isEmpty { lastCells.append(cell) }
        }
        return lastCells
    }

    /// Whether some area is registered on `cell`.
    func isWatched(_ cell: Int) -> Bool { cells[cell] != nil }

    /// Every cell some area is registered on.
    var watchedCells: [Int] { Array(cells.keys) }

    /// What each affected area subscription gets when a device moves from `old` (nil
    /// for its first position) to `new`: `.location` while inside, `.leave` on exit.
    func matches(old: Location?, new: Location) -> [(LocationStream, Publication.Kind)] {
        let newCell = grid.cell(lat: new.lat, lon: new.lon)
        var found: [(LocationStream, Publication.Kind)] = []
        for watcher in cells[newCell] ?? [] {
            if watcher.area.contains(new) {
                found.append((watcher.stream, .location))
            } else if let old, watcher.area.contains(old) {
                found.append((watcher.stream, .leave))
            }
        }
        guard let old else { return found }
        let oldCell = grid.cell(lat: old.lat, lon: old.lon)
        guard oldCell != newCell else { return found }
        for watcher in cells[oldCell] ?? [] where !watcher.cover.contains(newCell) && watcher.area.contains(old) {
            found.append((watcher.stream, .leave))
        }
        return found
    }
}
