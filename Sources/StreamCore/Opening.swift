import LocstreamProtocol

/// What a new subscription sends before its live frames: the snapshot (last known
/// position of each device) or, for devices listed in `since`, the updates history
/// kept after that seq. It also records the newest seq sent per device, so the live
/// task can drop anything at or below it: no gap and no duplicate between the two.
struct Opening {
    var frames: [EncodedLocation] = []
    var lastSent: [String: UInt64] = [:]

    /// Reads the opening of `request` for `devices` from `broker`. The subscription's
    /// stream must already be registered with the hub, so nothing published after
    /// this read can be missed.
    static func read(_ request: SubscribeRequest, devices: [String], from broker: any Broker) async throws(BrokerError)
        -> Opening
    {
        var opening = Opening()
        let resuming = devices.filter { request.since[$0] != nil }
        for device in resuming {
            let since = request.since[device] ?? 0
            let replay = try await broker.replay(device, after: since)
            opening.frames += replay.updates
            opening.lastSent[device] = replay.updates.last?.location.seq ?? min(since, replay.latestSeq)
        }
        guard request.snapshot else { return opening }
        let fresh = devices.filter { request.since[$0] == nil }
        for snapshot in try await broker.lastKnown(fresh) {
            opening.frames.append(snapshot)
            opening.lastSent[snapshot.location.device] = snapshot.location.seq
        }
        return opening
    }
}
