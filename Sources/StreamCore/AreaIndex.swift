import LocstreamProtocol

/// The area subscriptions of a hub, registered on the grid cells they cover.
///
/// A publication is matched by looking up the cell of the device's new position and
/// the cell of its old one, then testing each area registered there exactly: inside
/// at the new position is a location (enter or stay), inside at the old position only
/// is a leave. Its cost is the number of areas registered in those two cells, not the
/// number of area subscriptions.
///
/// A cover's run of columns in a row is registered on each of its cells while it is
/// narrow, and once for the whole row when it is wider than `wideRun` columns (a disc
/// around a pole, a box spanning the globe): then a lookup in that row also range-checks
/// the row's wide runs. So registering costs at most `wideRun` entries per row, whatever
/// the shape, and nothing stays behind on removal.
///
/// Not thread-safe: the hub keeps it under its lock.
struct AreaIndex {
    /// One area subscription, shared by the entries that register it.
    private final class Watcher {
        let area: GeoArea
        let cover: CellCover
        let stream: LocationStream
        /// The devices it may show; a device it may not is neither a location nor a leave.
        var rights: DeviceRights

        init(area: GeoArea, cover: CellCover, stream: LocationStream, rights: DeviceRights) {
            self.area = area
            self.cover = cover
            self.stream = stream
            self.rights = rights
        }
    }

    /// Runs wider than this many columns are registered once per row.
    static let wideRun = 32

    let grid: GeoGrid
    private var cells: [Int: [Watcher]] = [:]
    private var wideRows: [Int: [Watcher]] = [:]
    private var watchers: [UInt64: Watcher] = [:]
    private var nextID: UInt64 = 0

    init(grid: GeoGrid) { self.grid = grid }

    /// The number of area subscriptions registered.
    var count: Int { watchers.count }

    /// The entries held for them: one per narrow cell, one per wide row.
    var entryCount: Int { cells.values.reduce(0) { $0 + $1.count } + wideRows.values.reduce(0) { $0 + $1.count } }

    /// Registers `stream` on every cell `area` covers, showing the devices `rights`
    /// allow, and returns its id for `remove`. `newlyWatched` (if given) hears each cell
    /// that had no area registered before.
    mutating func insert(
        _ stream: LocationStream, area: GeoArea, rights: DeviceRights = .everyDevice,
        newlyWatched: ((Int) -> Void)? = nil
    ) -> UInt64 {
        nextID += 1
        let watcher = Watcher(area: area, cover: grid.cover(area), stream: stream, rights: rights)
        if let newlyWatched { watcher.cover.cells.filter { !isWatched($0) }.forEach(newlyWatched) }
        watchers[nextID] = watcher
        forEachEntry(of: watcher.cover) { cell, row in
            if let cell { cells[cell, default: []].append(watcher) } else { wideRows[row, default: []].append(watcher) }
        }
        return nextID
    }

    /// Removes the area subscription `id`. `noLongerWatched` (if given) hears each cell
    /// left with no area registered.
    mutating func remove(_ id: UInt64, noLongerWatched: ((Int) -> Void)? = nil) {
        guard let watcher = watchers.removeValue(forKey: id) else { return }
        forEachEntry(of: watcher.cover) { cell, row in
            if let cell {
                Self.remove(watcher, from: &cells, at: cell)
            } else {
                Self.remove(watcher, from: &wideRows, at: row)
            }
        }
        if let noLongerWatched { watcher.cover.cells.filter { !isWatched($0) }.forEach(noLongerWatched) }
    }

    /// From now on, area subscription `id` shows only the devices `rights` allow.
    func restrict(_ id: UInt64, to rights: DeviceRights) {
        watchers[id]?.rights = rights
    }

    /// Calls `body` with each entry a cover needs: (cell, row) per cell of a narrow
    /// run, (nil, row) for a wide one.
    private func forEachEntry(of cover: CellCover, _ body: (Int?, Int) -> Void) {
        for row in cover.rows {
            guard cover.run(inRow: row).count <= Self.wideRun else {
                body(nil, row)
                continue
            }
            for cell in cover.cells(inRow: row) { body(cell, row) }
        }
    }

    private static func remove(_ watcher: Watcher, from entries: inout [Int: [Watcher]], at key: Int) {
        guard var list = entries[key], let index = list.firstIndex(where: { $0 === watcher }) else { return }
        list.remove(at: index)
        entries[key] = list.isEmpty ? nil : list
    }

    /// The areas registered on `cell`: its own entries, and the wide runs of its row that hold it.
    private func watchers(of cell: Int) -> [Watcher] {
        let wide = wideRows[cell / grid.columns]?.filter { $0.cover.contains(cell) } ?? []
        guard let narrow = cells[cell] else { return wide }
        return wide.isEmpty ? narrow : narrow + wide
    }

    /// Whether some area is registered on `cell`.
    func isWatched(_ cell: Int) -> Bool {
        cells[cell] != nil || wideRows[cell / grid.columns]?.contains { $0.cover.contains(cell) } == true
    }

    /// Every cell some area is registered on.
    var watchedCells: [Int] {
        var watched = Set(cells.keys)
        for (row, list) in wideRows {
            for watcher in list { watched.formUnion(watcher.cover.cells(inRow: row)) }
        }
        return Array(watched)
    }

    /// What each affected area subscription gets when a device moves from `old` (nil
    /// for its first position) to `new`: `.location` while inside, `.leave` on exit;
    /// nothing for a subscription whose rights do not allow the device.
    func matches(old: Location?, new: Location) -> [(LocationStream, Publication.Kind)] {
        let newCell = grid.cell(lat: new.lat, lon: new.lon)
        var found: [(LocationStream, Publication.Kind)] = []
        for watcher in watchers(of: newCell) where watcher.rights.allows(new.device) {
            if watcher.area.contains(new) {
                found.append((watcher.stream, .location))
            } else if let old, watcher.area.contains(old) {
                found.append((watcher.stream, .leave))
            }
        }
        guard let old else { return found }
        let oldCell = grid.cell(lat: old.lat, lon: old.lon)
        guard oldCell != newCell else { return found }
        for watcher in watchers(of: oldCell)
        where !watcher.cover.contains(newCell) && watcher.rights.allows(new.device) && watcher.area.contains(old) {
            found.append((watcher.stream, .leave))
        }
        return found
    }
}
