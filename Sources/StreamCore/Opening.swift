import LocstreamProtocol

/// What a new subscription sends before its live frames: the snapshot (last known
/// position of each device, or of each device inside the area that its rights allow) or, for devices listed
/// in `since`, the updates history kept after that seq. It also records the newest seq
/// sent per device, so the live task can drop anything at or below it: no gap and no
/// duplicate between the two.
struct Opening {
    var frames: [EncodedLocation] = []
    var lastSent: [String: UInt64] = [:]

    /// Reads the opening of `request` for `watch` from `broker`. The subscription's
    /// stream must already be registered with the hub, so nothing published after
    /// this read can be missed.
    static func read(_ request: SubscribeRequest, watching watch: Watch, from broker: any Broker)
        async throws(BrokerError) -> Opening
    {
        switch watch {
        case .devices(let devices): try await read(request, devices: devices, from: broker)
        case .area(let area, let rights): try await read(request, area: area, rights: rights, from: broker)
        }
    }

    private static func read(_ request: SubscribeRequest, devices: [String], from broker: any Broker)
        async throws(BrokerError) -> Opening
    {
        var opening = try await replays(request, devices: devices, from: broker)
        guard request.snapshot else { return opening }
        opening.add(try await broker.lastKnown(devices.filter { request.since[$0] == nil }))
        return opening
    }

    private static func read(_ request: SubscribeRequest, area: GeoArea, rights: DeviceRights, from broker: any Broker)
        async throws(BrokerError) -> Opening
    {
        let inside = try await broker.lastKnown(in: area).filter { rights.allows($0.location.device) }
        var opening = try await replays(request, devices: inside.map(\.location.device), from: broker)
        opening.frames.removeAll { !area.contains($0.location) }
        guard request.snapshot else { return opening }
        opening.add(inside.filter { request.since[$0.location.device] == nil })
        return opening
    }

    /// The history after `since` of each of `devices` listed there.
    private static func replays(_ request: SubscribeRequest, devices: [String], from broker: any Broker)
        async throws(BrokerError) -> Opening
    {
        var opening = Opening()
        for device in devices {
            guard let since = request.since[device] else { continue }
            let replay = try await broker.replay(device, after: since)
            opening.frames += replay.updates
            opening.lastSent[device] = replay.updates.last?.location.seq ?? min(since, replay.latestSeq)
        }
        return opening
    }

    private mutating func add(_ snapshots: [EncodedLocation]) {
        for snapshot in snapshots {
            frames.append(snapshot)
            lastSent[snapshot.location.device] = snapshot.location.seq
        }
    }
}
