import Locking
import LocstreamProtocol

/// The embedded, in-process broker: one node, no outside service.
///
/// Per device it keeps the seq counter, the last known position and a bounded history,
/// and a grid index of last-known positions for area snapshots. Publishing assigns
/// seqs and fans out to the hub (with the device's previous position, so area
/// subscriptions see enter, stay and leave) inside one critical section, so every
/// subscriber sees each device's updates in seq order even when several publishers
/// race on the same device.
public final class LocalBroker: Broker {
    private struct Device {
        var seq: UInt64 = 0
        var last: EncodedLocation?
        var history: HistoryRing
    }

    private struct State {
        var devices: [String: Device] = [:]
        var positions: PositionIndex
    }

    private let state: Locked<State>
    private let hub: Hub
    private let historySize: Int

    /// A broker delivering to `hub`, keeping `historySize` updates per device and
    /// indexing positions on `grid`.
    public init(hub: Hub, historySize: Int, grid: GeoGrid = GeoGrid()) {
        self.hub = hub
        self.historySize = historySize
        state = Locked(State(positions: PositionIndex(grid: grid)))
    }

    public func publish(_ locations: [Location]) async throws(BrokerError) -> [EncodedLocation] {
        let hub = self.hub
        let historySize = self.historySize
        return state.withLock { state in
            locations.map { location in
                let previous = state.devices[location.device]?.last?.location
                let encoded = Self.record(
                    location,
                    in: &state.devices[location.device, default: Device(history: HistoryRing(capacity: historySize))])
                state.positions.move(
                    location.device, from: previous.map { ($0.lat, $0.lon) }, to: (location.lat, location.lon))
                hub.deliver(encoded, previous: previous)
                return encoded
            }
        }
    }

    /// Stamps `location` with the device's next seq and keeps it, in place.
    private static func record(_ location: Location, in device: inout Device) -> EncodedLocation {
        device.seq += 1
        var stamped = location
        stamped.seq = device.seq
        let encoded = EncodedLocation(stamped)
        device.last = encoded
        device.history.append(encoded)
        return encoded
    }

    public func lastKnown(_ ids: [String]) async throws(BrokerError) -> [EncodedLocation] {
        state.withLock { state in ids.compactMap { state.devices[$0]?.last } }
    }

    public func lastKnown(in area: GeoArea) async throws(BrokerError) -> [EncodedLocation] {
        state.withLock { state in
            state.positions.candidates(in: area).compactMap { state.devices[$0]?.last }.filter {
                area.contains($0.location)
            }
        }
    }

    public func replay(_ id: String, after seq: UInt64) async throws(BrokerError) -> Replay {
        state.withLock { state in
            guard let device = state.devices[id] else { return Replay(updates: [], latestSeq: 0) }
            return Replay(updates: device.history.updates(after: seq), latestSeq: device.seq)
        }
    }

    public func confirmInterest() async throws(BrokerError) {}

    public var isReachable: Bool { true }

    public func close() {}
}
