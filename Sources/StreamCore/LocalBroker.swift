import Locking
import LocstreamProtocol
import Observability

/// The embedded, in-process broker: one node, no outside service.
///
/// Per device it keeps a `HistoryRing` (whose newest update is the last known position
/// and holds the seq) and when it was last heard, and a grid index of last-known
/// positions for area snapshots. Publishing assigns seqs and reports each update to
/// the node's `BrokerEventHandler` (with the device's previous position, so area
/// subscriptions see enter, stay and leave) inside one critical section, so every subscriber sees each device's updates in seq
/// order even when several publishers race on the same device.
///
/// Devices are bounded (`DeviceLimits`): new ones past `maxDevices` are refused, and
/// `sweep` forgets those silent longer than the retention. A forgotten device's seq
/// raises the seq floor, above which every new device starts, so a device that comes
/// back never gets a seq at or below one already handed out.
public final class LocalBroker: Broker {
    private struct Device {
        var history: HistoryRing
        /// Seconds after `started` when it last published.
        var lastSeen: UInt32
    }

    private struct State {
        var devices: [String: Device] = [:]
        var positions: PositionIndex
        /// The highest seq of a forgotten device.
        var seqFloor: UInt64 = 0
        /// Where publications are reported, once `run` is called.
        var events: (any BrokerEventHandler)?
    }

    private let state: Locked<State>
    public let grid: GeoGrid
    private let historySize: Int
    private let limits: DeviceLimits
    private let evicted: Counter?
    private let started: ContinuousClock.Instant

    /// A broker keeping `historySize` updates per device, indexing positions on `grid`,
    /// bounded by `limits`, counting forgotten devices in `evicted`.
    public init(
        historySize: Int, grid: GeoGrid = GeoGrid(), limits: DeviceLimits = DeviceLimits(),
        evicted: Counter? = nil, now: ContinuousClock.Instant = .now
    ) {
        self.grid = grid
        self.historySize = historySize
        self.limits = limits
        self.evicted = evicted
        started = now
        state = Locked(State(positions: PositionIndex(grid: grid)))
    }

    public var followsInterest: Bool { false }

    public func run(reporting events: any BrokerEventHandler) {
        state.withLock { $0.events = events }
    }

    public func interestChanged(_ subject: Subject) {}

    public func publish(_ locations: [Location]) async throws(BrokerError) -> [EncodedLocation] {
        try publish(locations, now: .now)
    }

    /// Publishes `locations` as heard at `now`; all or nothing.
    func publish(_ locations: [Location], now: ContinuousClock.Instant) throws(BrokerError) -> [EncodedLocation] {
        let seen = seconds(at: now)
        let stored = state.withLock { state -> [EncodedLocation]? in
            let newDevices = Set(locations.map(\.device)).filter { state.devices[$0] == nil }.count
            guard state.devices.count + newDevices <= limits.maxDevices else { return nil }
            return locations.map { location in record(location, seen: seen, in: &state) }
        }
        guard let stored else { throw .deviceLimit(limits.maxDevices) }
        return stored
    }

    /// Stamps `location` with its device's next seq, keeps it and reports it, in place.
    private func record(_ location: Location, seen: UInt32, in state: inout State) -> EncodedLocation {
        let previous = state.devices[location.device]?.history.newest
        var stamped = location
        stamped.seq = (previous?.location.seq ?? state.seqFloor) + 1
        let encoded = EncodedLocation(stamped)
        if state.devices[location.device] == nil {
            state.devices[location.device] = Device(history: HistoryRing(first: encoded), lastSeen: seen)
        } else {
            state.devices[location.device]?.history.append(encoded, capacity: historySize)
            state.devices[location.device]?.lastSeen = seen
        }
        let from = previous.map { ($0.location.lat, $0.location.lon) }
        state.positions.move(location.device, from: from, to: (location.lat, location.lon))
        state.events?.handlePublication(encoded, previous: previous?.location, to: .everyone)
        return encoded
    }

    /// Forgets every device silent for longer than the retention; returns how many.
    @discardableResult
    public func sweep(now: ContinuousClock.Instant = .now) -> Int {
        guard let retention = limits.retention else { return 0 }
        let cutoff = Int64(seconds(at: now)) - retention.components.seconds
        let count = state.withLock { state in
            let silent = state.devices.filter { Int64($0.value.lastSeen) < cutoff }
            for (id, device) in silent {
                let last = device.history.newest.location
                state.seqFloor = max(state.seqFloor, last.seq)
                state.positions.remove(id, at: (last.lat, last.lon))
                state.devices[id] = nil
            }
            return silent.count
        }
        evicted?.increment(by: count)
        return count
    }

    /// Devices tracked now.
    public var deviceCount: Int {
        state.withLock { $0.devices.count }
    }

    private func seconds(at now: ContinuousClock.Instant) -> UInt32 {
        UInt32(clamping: max((now - started).components.seconds, 0))
    }

    public func lastKnown(_ ids: [String]) async throws(BrokerError) -> [EncodedLocation] {
        state.withLock { state in ids.compactMap { state.devices[$0]?.history.newest } }
    }

    public func lastKnown(in area: GeoArea) async throws(BrokerError) -> [EncodedLocation] {
        state.withLock { state in
            state.positions.candidates(in: area).compactMap { state.devices[$0]?.history.newest }.filter {
                area.contains($0.location)
            }
        }
    }

    public func replay(_ id: String, after seq: UInt64) async throws(BrokerError) -> Replay {
        state.withLock { state in
            guard let device = state.devices[id] else { return Replay(updates: [], latestSeq: 0) }
            return Replay(
                updates: device.history.updates(after: seq, capacity: historySize),
                latestSeq: device.history.newest.location.seq)
        }
    }

    public func confirmInterest() async throws(BrokerError) {}

    public var isReachable: Bool { true }

    public func close() {}
}
