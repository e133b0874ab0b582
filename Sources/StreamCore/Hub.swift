import Locking
import LocstreamProtocol

/// Which local subscription streams watch which device or area, and the fan-out to them.
///
/// A publication is encoded once (`EncodedLocation`) and the same bytes are pushed to
/// every stream watching its device: one dictionary lookup and one push per
/// subscriber, with no actor hop. Area subscriptions sit in an `AreaIndex` under the
/// same lock and are matched in the same call, so a device's updates reach device and
/// area subscribers alike in seq order.
///
/// When the first local subscriber of a subject (a device, or a grid cell an area
/// covers) arrives or the last one leaves, the hub tells `interestChanged`, inside its
/// lock, so a shared broker that then asks `isWatched` sees every change in order and
/// holds one upstream subscription per subject however many clients watch it.
public final class Hub: Sendable {
    private struct Registry {
        var streams: [String: [LocationStream]] = [:]
        var deviceEntries = 0
        var areas: AreaIndex
    }

    /// The grid areas are indexed on; a shared broker names cell channels by it.
    public let grid: GeoGrid
    private let registry: Locked<Registry>
    private let interestChanged: (@Sendable (Subject) -> Void)?

    /// Where a cell's change of interest goes; nil when no broker listens, so the
    /// cells of a wide area are not even enumerated.
    private var cellInterest: ((Int) -> Void)? {
        interestChanged.map { noted in { noted(.cell($0)) } }
    }

    /// A hub indexing areas on `grid` that reports each subject gaining its first or
    /// losing its last local subscriber to `interestChanged`. That runs under the hub's
    /// lock, so it must only note the subject and return.
    public init(grid: GeoGrid = GeoGrid(), interestChanged: (@Sendable (Subject) -> Void)? = nil) {
        self.grid = grid
        registry = Locked(Registry(areas: AreaIndex(grid: grid)))
        self.interestChanged = interestChanged
    }

    /// Registers `stream` for what `watch` names; `unregister` undoes it.
    func register(_ stream: LocationStream, for watch: Watch) -> HubRegistration {
        switch watch {
        case .devices(let devices):
            register(stream, for: devices)
            return .devices(devices, stream)
        case .area(let area, let rights):
            return .area(
                registry.withLock { registry in
                    registry.areas.insert(stream, area: area, rights: rights, newlyWatched: cellInterest)
                })
        }
    }

    /// Removes what `register` added.
    func unregister(_ registration: HubRegistration) {
        switch registration {
        case .devices(let devices, let stream):
            unregister(stream, from: devices)
        case .area(let id):
            registry.withLock { registry in registry.areas.remove(id, noLongerWatched: cellInterest) }
        }
    }

    /// From now on, the area of `registration` shows only the devices `rights` allow
    /// (a token refresh); a device registration is unchanged.
    func restrict(_ registration: HubRegistration, to rights: DeviceRights) {
        guard case .area(let id) = registration else { return }
        registry.withLock { registry in registry.areas.restrict(id, to: rights) }
    }

    /// Registers `stream` for each of `devices`.
    public func register(_ stream: LocationStream, for devices: [String]) {
        registry.withLock { registry in
            for device in devices {
                registry.deviceEntries += 1
                if registry.streams[device] == nil { interestChanged?(.device(device)) }
                registry.streams[device, default: []].append(stream)
            }
        }
    }

    /// Removes `stream` from each of `devices`.
    public func unregister(_ stream: LocationStream, from devices: [String]) {
        registry.withLock { registry in
            for device in devices {
                guard var streams = registry.streams[device],
                    let index = streams.firstIndex(where: { $0 === stream })
                else { continue }
                streams.remove(at: index)
                registry.deviceEntries -= 1
                registry.streams[device] = streams.isEmpty ? nil : streams
                if streams.isEmpty { interestChanged?(.device(device)) }
            }
        }
    }

    /// Whether some local subscriber watches `subject` now.
    public func isWatched(_ subject: Subject) -> Bool {
        registry.withLock { registry in
            switch subject {
            case .device(let device): registry.streams[device] != nil
            case .cell(let cell): registry.areas.isWatched(cell)
            }
        }
    }

    /// Every subject some local subscriber watches now.
    public var watchedSubjects: [Subject] {
        registry.withLock { registry in
            registry.streams.keys.map(Subject.device) + registry.areas.watchedCells.map(Subject.cell)
        }
    }

    /// Pushes `update` to every stream watching its device, and to every area
    /// subscription it enters, stays in or leaves, given the device's `previous`
    /// position (nil when it had none); `audience` narrows that to one of the two.
    /// Call it in the broker's per-device order.
    public func deliver(_ update: EncodedLocation, previous: Location? = nil, to audience: Audience = .everyone) {
        let (streams, areaMatches) = registry.withLock { registry in
            (
                audience == .areaWatchers ? [] : registry.streams[update.location.device] ?? [],
                audience == .deviceWatchers ? [] : registry.areas.matches(old: previous, new: update.location)
            )
        }
        guard !streams.isEmpty || !areaMatches.isEmpty else { return }
        let publication = Publication(update)
        for stream in streams { stream.push(publication) }
        for (stream, kind) in areaMatches { stream.push(publication.told(as: kind)) }
    }

    /// Pushes an `offline` of the device of `last` (its last known position) to every
    /// stream watching the device, and to every area subscription that holds `last`.
    func deliverOffline(_ last: EncodedLocation) {
        let streams = registry.withLock { registry in
            (registry.streams[last.location.device] ?? [])
                + registry.areas.matches(old: nil, new: last.location).map { $0.0 }
        }
        let publication = Publication(last, kind: .offline)
        for stream in streams { stream.push(publication) }
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
