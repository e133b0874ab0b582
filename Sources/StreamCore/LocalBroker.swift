import Locking
import LocstreamProtocol

/// The embedded, in-process broker: one node, no outside service.
///
/// Per device it keeps the seq counter, the last known position and a bounded history.
/// Publishing assigns seqs and fans out to the hub inside one critical section, so
/// every subscriber sees each device's updates in seq order even when several
/// publishers race on the same device.
public final class LocalBroker: Broker {
    private struct Device {
        var seq: UInt64 = 0
        var last: EncodedLocation?
        var history: HistoryRing
    }

    private let devices = Locked<[String: Device]>([:])
    private let hub: Hub
    private let historySize: Int

    /// A broker delivering to `hub`, keeping `historySize` updates per device.
    public init(hub: Hub, historySize: Int) {
        self.hub = hub
        self.historySize = historySize
    }

    public func publish(_ locations: [Location]) async throws(BrokerError) -> [EncodedLocation] {
        let hub = self.hub
        let historySize = self.historySize
        return devices.withLock { devices in
            locations.map { location in
                let encoded = Self.record(
                    location,
                    in: &devices[location.device, default: Device(history: HistoryRing(capacity: historySize))])
                hub.deliver(encoded)
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
        devices.withLock { devices in ids.compactMap { devices[$0]?.last } }
    }

    public func replay(_ id: String, after seq: UInt64) async throws(BrokerError) -> Replay {
        devices.withLock { devices in
            guard let device = devices[id] else { return Replay(updates: [], latestSeq: 0) }
            return Replay(updates: device.history.updates(after: seq), latestSeq: device.seq)
        }
    }

    public func setInterest(in device: String, _ interested: Bool) {}

    public var isReachable: Bool { true }
}
