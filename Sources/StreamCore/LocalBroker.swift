import Foundation
import Locking
import LocstreamProtocol
import Observability

/// The embedded, in-process broker: one node, no outside service.
///
/// Per device it keeps a `HistoryRing` (whose newest update is the last known position
/// and holds the seq) and when it was last heard, and a grid index of last-known
/// positions for area snapshots. Publishing assigns seqs and reports each update to
/// the node's `BrokerEventHandler` (with the device's previous position, so area
/// subscriptions see enter, stay and leave) inside one critical section, so every
/// subscriber sees each device's updates in seq order even when several publishers race
/// on the same device.
///
/// With a `DeviceStore` (`--store sqlite`, the default) it remembers across restarts: it
/// starts from what the store holds, hands each publication to the store inside the same
/// critical section, delivers it at once, and answers the publisher only after the
/// commit. A `since` that reaches further back than memory reads the store.
///
/// Devices are bounded (`DeviceLimits`): new ones past `maxDevices` are refused, and
/// `sweep` forgets those silent longer than the retention. A forgotten device's seq
/// raises the seq floor, above which every new device starts, so a device that comes
/// back never gets a seq at or below one already handed out.
public final class LocalBroker: Broker {
    private struct Device {
        var history: HistoryRing
        /// Seconds after `started` when it last published (negative for a device the
        /// store remembered from before the start).
        var lastSeen: Int32
    }

    private struct State {
        var devices: [String: Device] = [:]
        var positions: PositionIndex
        /// The seq a new device starts above: the highest seq of a forgotten device, or
        /// the store's floor.
        var seqFloor: UInt64 = 0
        /// The seq every device continues above: the store's, after a crash.
        var resumeFloor: UInt64 = 0
        /// Where publications are reported, once `run` is called.
        var events: (any BrokerEventHandler)?
    }

    private let state: Locked<State>
    public let grid: GeoGrid
    private let historySize: Int
    private let limits: DeviceLimits
    private let evicted: Counter?
    private let store: (any DeviceStore)?
    private let started: ContinuousClock.Instant
    /// The wall clock at `started`, for the times the store keeps.
    private let startedAt: Date

    /// A broker in memory alone (`--store memory`), keeping `historySize` updates per
    /// device, indexing positions on `grid`, bounded by `limits`, counting forgotten
    /// devices in `evicted`.
    public convenience init(
        historySize: Int, grid: GeoGrid = GeoGrid(), limits: DeviceLimits = DeviceLimits(),
        evicted: Counter? = nil, now: ContinuousClock.Instant = .now
    ) {
        self.init(historySize: historySize, grid: grid, limits: limits, evicted: evicted, now: now, durable: nil)
    }

    /// A broker that starts from what `store` holds and writes every publication to it;
    /// otherwise as `init(historySize:grid:limits:evicted:now:)`.
    public convenience init(
        restoringFrom store: any DeviceStore, historySize: Int, grid: GeoGrid = GeoGrid(),
        limits: DeviceLimits = DeviceLimits(), evicted: Counter? = nil, now: ContinuousClock.Instant = .now
    ) throws(BrokerError) {
        let stored = try store.load()
        self.init(
            historySize: historySize, grid: grid, limits: limits, evicted: evicted, now: now,
            durable: (store, stored))
    }

    private init(
        historySize: Int, grid: GeoGrid, limits: DeviceLimits, evicted: Counter?, now: ContinuousClock.Instant,
        durable: (store: any DeviceStore, stored: StoredDevices)?
    ) {
        self.grid = grid
        self.historySize = historySize
        self.limits = limits
        self.evicted = evicted
        store = durable?.store
        started = now
        let startedAt = Date()
        self.startedAt = startedAt
        var initial = State(positions: PositionIndex(grid: grid))
        if let stored = durable?.stored { Self.restore(stored, startedAt: startedAt, into: &initial) }
        state = Locked(initial)
    }

    /// Fills `state` with the devices the store held, and its floors.
    private static func restore(_ stored: StoredDevices, startedAt: Date, into state: inout State) {
        state.seqFloor = stored.seqFloor
        state.devices.reserveCapacity(stored.devices.count)
        for device in stored.devices {
            let location = device.last.location
            let heard = Int32(clamping: Int(device.lastHeard.timeIntervalSince(startedAt).rounded(.down)))
            state.devices[location.device] = Device(history: HistoryRing(first: device.last), lastSeen: heard)
            state.positions.move(location.device, from: nil, to: (location.lat, location.lon))
            if device.seq > location.seq { state.resumeFloor = max(state.resumeFloor, device.seq) }
        }
    }

    public var followsInterest: Bool { false }

    public func run(reporting events: any BrokerEventHandler) {
        state.withLock { $0.events = events }
    }

    public func interestChanged(_ subject: Subject) {}

    public func publish(_ locations: [Location], confirmed: Bool) async throws(BrokerError) -> [EncodedLocation] {
        let commit = confirmed ? store.map { _ in OneShot<Result<Void, BrokerError>>() } : nil
        let stored = try publish(locations, now: .now, committed: commit?.fulfil)
        if let outcome = await commit?.value() { try outcome.get() }
        return stored
    }

    /// Publishes `locations` as heard at `now`, all or nothing, and delivers them; with a
    /// store, hands them to it first and tells `committed`, if given, when they are durable.
    func publish(
        _ locations: [Location], now: ContinuousClock.Instant,
        committed: (@Sendable (Result<Void, BrokerError>) -> Void)? = nil
    ) throws(BrokerError) -> [EncodedLocation] {
        let seen = seconds(at: now)
        let heardAt = startedAt.addingTimeInterval((now - started).seconds)
        return try state.withLock { (state) throws(BrokerError) -> [EncodedLocation] in
            let newDevices = Set(locations.map(\.device)).filter { state.devices[$0] == nil }.count
            guard state.devices.count + newDevices <= limits.maxDevices else { throw .deviceLimit(limits.maxDevices) }
            let stamped = stamp(locations, in: state)
            try store?.write(stamped, heardAt: heardAt, committed: committed)
            for update in stamped { record(update, seen: seen, in: &state) }
            return stamped
        }
    }

    /// `locations` with their devices' next seqs, in order (a device may come more than
    /// once), without changing anything yet.
    private func stamp(_ locations: [Location], in state: State) -> [EncodedLocation] {
        var assigned: [String: UInt64] = [:]
        if locations.count > 1 { assigned.reserveCapacity(locations.count) }
        return locations.map { location in
            let previous =
                assigned[location.device] ?? state.devices[location.device]?.history.newest.location.seq
                ?? state.seqFloor
            var stamped = location
            stamped.seq = max(previous, state.resumeFloor) + 1
            if locations.count > 1 { assigned[location.device] = stamped.seq }
            return EncodedLocation(stamped)
        }
    }

    /// Keeps `encoded`, stamped with its device's next seq, and reports it, in place.
    private func record(_ encoded: EncodedLocation, seen: Int32, in state: inout State) {
        let location = encoded.location
        let previous: EncodedLocation?
        if let index = state.devices.index(forKey: location.device) {
            previous = state.devices.values[index].history.newest
            state.devices.values[index].history.append(encoded, capacity: historySize)
            state.devices.values[index].lastSeen = seen
        } else {
            previous = nil
            state.devices[location.device] = Device(history: HistoryRing(first: encoded), lastSeen: seen)
        }
        let from = previous.map { ($0.location.lat, $0.location.lon) }
        state.positions.move(location.device, from: from, to: (location.lat, location.lon))
        state.events?.handlePublication(encoded, previous: previous?.location, to: .everyone)
    }

    /// Forgets every device silent for longer than the retention, in memory and in the
    /// store; returns how many memory held. A store that fails keeps its devices until
    /// the next sweep, and the error is thrown after memory is swept.
    @discardableResult
    public func sweep(now: ContinuousClock.Instant = .now) async throws(BrokerError) -> Int {
        guard let retention = limits.retention else { return 0 }
        let count = sweepMemory(now: now, retention: retention)
        let cutoff = startedAt.addingTimeInterval((now - started - retention).seconds)
        _ = try await store?.removeSilent(olderThan: cutoff)
        return count
    }

    private func sweepMemory(now: ContinuousClock.Instant, retention: Duration) -> Int {
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

    private func seconds(at now: ContinuousClock.Instant) -> Int32 {
        Int32(clamping: (now - started).components.seconds)
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

    /// Reads the candidates from the position index, cell by cell, under the lock.
    public func positions(matching query: PositionQuery) async throws(BrokerError) -> PositionQueryResult {
        state.withLock { state in
            let devices = state.devices
            return query.collect(
                state.positions.candidateCells(in: query.area).lazy.flatMap { $0 }.compactMap {
                    devices[$0]?.history.newest
                })
        }
    }

    public func replay(_ id: String, after seq: UInt64) async throws(BrokerError) -> Replay {
        let kept = state.withLock { state -> (Replay, reachesBack: Bool)? in
            guard let device = state.devices[id] else { return nil }
            let history = device.history
            let replay = Replay(
                updates: history.updates(after: seq, capacity: historySize), latestSeq: history.newest.location.seq)
            return (replay, history.count >= historySize || history.oldest.location.seq <= seq + 1)
        }
        guard let (replay, reachesBack) = kept else { return Replay(updates: [], latestSeq: 0) }
        guard let store, !reachesBack, historySize > 0 else { return replay }
        let oldestKept = replay.updates.first?.location.seq ?? .max
        let older = try await Self.readingOffLoop { () throws(BrokerError) in try store.history(id, after: seq) }
            .filter { $0.location.seq < oldestKept }
        return Replay(updates: Array((older + replay.updates).suffix(historySize)), latestSeq: replay.latestSeq)
    }

    /// Runs a store read, which blocks on the disk, on the global concurrent executor:
    /// a subscribe is answered on its connection's service thread, which must never block.
    private static func readingOffLoop<Value: Sendable>(
        _ read: @escaping @Sendable () throws(BrokerError) -> Value
    ) async throws(BrokerError) -> Value {
        let task = Task(executorPreference: globalConcurrentExecutor) { () -> Result<Value, BrokerError> in
            do throws(BrokerError) { return .success(try read()) } catch { return .failure(error) }
        }
        return try await task.value.get()
    }

    public func confirmInterest() async throws(BrokerError) {}

    public var isReachable: Bool { store?.isHealthy ?? true }

    /// Closes the store, if any, after committing what it holds.
    public func close() {
        store?.close()
    }
}
