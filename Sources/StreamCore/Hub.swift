import Locking
import LocstreamProtocol

/// Which local subscription streams watch which device or area, and the fan-out to them.
///
/// A publication is encoded once (`EncodedLocation`) and the same bytes are pushed to
/// every stream watching its device: one dictionary lookup and one push per
/// subscriber, with no actor hop. Area subscriptions sit in an `AreaIndex` under the
/// same lock and are matched in the same call, so a device's updates reach device and
/// area subscribers alike in seq order. When the first local subscriber of a device
/// arrives or the last one leaves, the hub tells `interestChanged`, so a shared broker
/// holds one upstream subscription per device however many clients watch it.
public final class Hub: Sendable {
    private struct Registry {
        var streams: [String: [LocationStream]] = [:]
        var deviceEntries = 0
        var areas: AreaIndex
    }

    private let registry: Locked<Registry>
    private let interestChanged: @Sendable (_ device: String, _ interested: Bool) -> Void

    /// A hub indexing areas on `grid` that reports first/last interest in a device to
    /// `interestChanged`.
    public init(grid: GeoGrid = GeoGrid(), interestChanged: @escaping @Sendable (String, Bool) -> Void = { _, _ in }) {
        registry = Locked(Registry(areas: AreaIndex(grid: grid)))
        self.interestChanged = interestChanged
    }

    /// Registers `stream` for what `watch` names; `unregister` undoes it.
    func register(_ stream: LocationStream, for watch: Watch) -> HubRegistration {
        switch watch {
        case .devices(let devices):
            register(stream, for: devices)
            return .devices(devices, stream)
        case .area(let area):
            return .area(registry.withLock { $0.areas.insert(stream, area: area) })
        }
    }

    /// Removes what `register` added.
    func unregister(_ registration: HubRegistration) {
        switch registration {
        case .devices(let devices, let stream): unregister(stream, from: devices)
        case .area(let id): registry.withLock { $0.areas.remove(id) }
        }
    }

    /// Registers `stream` for each of `devices`.
    public func register(_ stream: LocationStream, for devices: [String]) {
        let firsts = registry.withLock { registry in
            devices.filter { device in
                registry.deviceEntries += 1
                let first = registry.streams[device] == nil
                registry.streams[device, default: []].append(stream)
                return first
            }
        }
        for device in firsts { interestChanged(device, true) }
    }

    /// Removes `stream` from each of `devices`.
    public func unregister(_ stream: LocationStream, from devices: [String]) {
        let lasts = registry.withLock { registry in
            devices.filter { device in
                guard var streams = registry.streams[device],
                    let index = streams.firstIndex(where: { $0 === stream })
                else { return false }
                streams.remove(at: index)
                registry.deviceEntries -= 1
                registry.streams[device] = streams.isEmpty ? nil : streams
                return streams.isEmpty
            }
        }
        for device in lasts { interestChanged(device, false) }
    }

    /// Pushes `update` to every stream watching its device, and to every area
    /// subscription it enters, stays in or leaves, given the device's `previous`
    /// position (nil when it had none). Call it in the broker's per-device order.
    public func deliver(_ update: EncodedLocation, previous: Location? = nil) {
        let (streams, areaMatches) = registry.withLock {
            ($0.streams[update.location.device] ?? [], $0.areas.matches(old: previous, new: update.location))
        }
        guard !streams.isEmpty || !areaMatches.isEmpty else { return }
        let receivedAt = ContinuousClock.now
        let publication = Publication(update, receivedAt: receivedAt)
        for stream in streams { stream.push(publication) }
        for (stream, kind) in areaMatches {
            stream.push(kind == .location ? publication : Publication(update, receivedAt: receivedAt, kind: kind))
        }
    }

    /// The number of registrations: one per (stream, device) plus one per area
    /// subscription. The `hub_entries` gauge.
    public var entryCount: Int { registry.withLock { $0.deviceEntries + $0.areas.count } }
}

/// A hub registration, kept by its subscription to undo it.
enum HubRegistration {
    case devices([String], LocationStream)
    case area(UInt64)
}
