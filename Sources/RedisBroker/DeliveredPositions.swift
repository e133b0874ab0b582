import Locking
import LocstreamProtocol
import StreamCore

/// The newest update this node delivered per device, kept while a local client watches
/// the device or the grid cell it is in.
///
/// Redis can lose a write after its message went out: a restart from an append-only
/// file that was not yet synced, a failover to a replica that lagged. A snapshot read
/// from Redis alone could then be older than a frame this node already delivered for
/// the device. Snapshots therefore take the newer of Redis's last position and the one
/// delivered here before Redis was asked. Each update is noted before the hub delivers
/// it, so a subscription opened after a frame went out always sees that frame's update.
final class DeliveredPositions: Sendable {
    private struct State {
        var updates: [String: (update: EncodedLocation, cell: Int)] = [:]
        var devicesByCell: [Int: Set<String>] = [:]

        mutating func remove(_ device: String) {
            guard let cell = updates.removeValue(forKey: device)?.cell else { return }
            devicesByCell[cell]?.remove(device)
            if devicesByCell[cell]?.isEmpty == true { devicesByCell[cell] = nil }
        }
    }

    private let grid: GeoGrid
    private let state = Locked(State())

    /// Positions in `grid`'s cells, each kept while its device or its cell is watched.
    init(grid: GeoGrid) {
        self.grid = grid
    }

    /// Notes `update`, about to be delivered, if it is the device's newest and
    /// `isWatched` says its device or cell is.
    func note(_ update: EncodedLocation, isWatched: (Subject) -> Bool) {
        let location = update.location
        let cell = grid.cell(lat: location.lat, lon: location.lon)
        let kept = isWatched(.device(location.device)) || isWatched(.cell(cell))
        state.withLock { state in
            guard location.seq > state.updates[location.device]?.update.location.seq ?? 0 else { return }
            state.remove(location.device)
            guard kept else { return }
            state.updates[location.device] = (update, cell)
            state.devicesByCell[cell, default: []].insert(location.device)
        }
    }

    /// The node stopped watching `subject`: positions `isWatched` no longer covers are dropped.
    func forget(_ subject: Subject, isWatched: (Subject) -> Bool) {
        state.withLock { state in
            switch subject {
            case .device(let device):
                guard let cell = state.updates[device]?.cell, !isWatched(.cell(cell)) else { return }
                state.remove(device)
            case .cell(let cell):
                for device in state.devicesByCell[cell] ?? [] where !isWatched(.device(device)) { state.remove(device) }
            }
        }
    }

    /// The updates delivered here so far of `devices`. Read it before asking Redis, and
    /// give it to `newest`: an update delivered after that question went out also reaches
    /// the new subscription live, so only those delivered before may replace Redis's
    /// answer, which keeps a snapshot of one atomic Redis read whole.
    func delivered(of devices: [String]) -> [String: EncodedLocation] {
        state.withLock { state in
            Dictionary(
                devices.compactMap { device in state.updates[device].map { (device, $0.update) } },
                uniquingKeysWith: { first, _ in first })
        }
    }

    /// The updates delivered here so far of devices in the cells `area` covers; see
    /// `delivered(of:)`.
    func delivered(in area: GeoArea) -> [String: EncodedLocation] {
        let cover = grid.cover(area)
        return state.withLock { state in
            var found: [String: EncodedLocation] = [:]
            for (cell, devices) in state.devicesByCell where cover.contains(cell) {
                for device in devices { found[device] = state.updates[device]?.update }
            }
            return found
        }
    }

    /// `stored` (Redis's answer) with each device replaced by the update in `delivered`
    /// when that is newer, and the devices Redis did not name added.
    static func newest(stored: [EncodedLocation], delivered: [String: EncodedLocation]) -> [EncodedLocation] {
        var byDevice = Dictionary(stored.map { ($0.location.device, $0) }, uniquingKeysWith: { first, _ in first })
        byDevice.merge(delivered) { fromRedis, local in local.location.seq > fromRedis.location.seq ? local : fromRedis
        }
        return Array(byDevice.values)
    }
}
