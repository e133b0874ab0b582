import Foundation
import Locking
import LocstreamProtocol
import Observability

/// Which devices are online: heard from within `--offline-after` (`offlineAfter`), on
/// the node's clock.
///
/// The node's broker event handler tells it every publication it hears (`heard`); the
/// node's presence watch calls `expire` a few times per `offlineAfter`, and the hub sends
/// each device that expired a `presence` of `online:false` (`Hub.deliverOffline`). Only
/// online devices are kept, so memory follows them. A device the tracker does not know (a
/// restart, or a Redis node that was not watching it) is judged by its `ts` instead, and
/// noted if that says online, so it expires in turn; one judged offline is not reported
/// as a transition: a restart replays none.
public final class PresenceTracker: Sendable {
    private struct Device {
        var heard: ContinuousClock.Instant
        var last: EncodedLocation
    }

    /// How long a device may be silent and still be online.
    public let offlineAfter: Duration
    private let clock: any NodeClock
    private let online: Locked<[String: Device]>
    private let gauge: Gauge?

    /// A tracker on `clock` with `offlineAfter`, counting online devices in `gauge`.
    public init(offlineAfter: Duration, clock: any NodeClock, gauge: Gauge? = nil) {
        self.offlineAfter = offlineAfter
        self.clock = clock
        self.gauge = gauge
        online = Locked([:])
    }

    /// How often `expire` should run: a quarter of `offlineAfter`, at most a second.
    public var tick: Duration { min(offlineAfter / 4, .seconds(1)) }

    /// Notes that `update` was heard now (a repeat of a seq already noted changes nothing).
    func heard(_ update: EncodedLocation) {
        let now = clock.instant
        let added = online.withLock { online -> Bool in
            let device = update.location.device
            if let known = online[device], known.last.location.seq >= update.location.seq { return false }
            return online.updateValue(Device(heard: now, last: update), forKey: device) == nil
        }
        if added { gauge?.add(1) }
    }

    /// Whether the device of `update` (its last known position) is online now.
    public func isOnline(_ update: EncodedLocation) -> Bool {
        let location = update.location
        let now = clock.instant
        let wall = clock.now
        let offlineAfter = offlineAfter
        let (known, added) = online.withLock { online -> (Bool, Bool) in
            if let device = online[location.device] { return (now - device.heard <= offlineAfter, false) }
            let silent = Duration.milliseconds(Int64(wall.timeIntervalSince1970 * 1000) - location.ts)
            guard silent <= offlineAfter else { return (false, false) }
            online[location.device] = Device(heard: now - max(silent, .zero), last: update)
            return (true, true)
        }
        if added { gauge?.add(1) }
        return known
    }

    /// Forgets every device silent for longer than `offlineAfter` and returns their last
    /// positions: each goes offline once.
    func expire() -> [EncodedLocation] {
        let now = clock.instant
        let offlineAfter = offlineAfter
        let expired = online.withLock { online in
            let silent = online.filter { now - $0.value.heard > offlineAfter }
            for device in silent.keys { online[device] = nil }
            return silent.values.map(\.last)
        }
        gauge?.add(-expired.count)
        return expired
    }
}
