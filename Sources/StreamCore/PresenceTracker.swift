import Foundation
import Locking
import LocstreamProtocol
import Observability

/// Which devices are online: heard from within `--offline-after` (`offlineAfter`), on
/// the node's clock.
///
/// The node's broker event handler tells it every publication it hears (`heard`); the
/// node's presence watch calls `expire` a few times per `offlineAfter` (each costs the
/// devices that expire, see `State`), and the hub sends
/// each device that expired a `presence` of `online:false` (`Hub.deliverOffline`). Only
/// online devices are kept, so memory follows them. A device the tracker does not know (a
/// restart, or a Redis node that was not watching it) is judged by its `ts` instead, and
/// noted if that says online, so it expires in turn; one judged offline is not reported
/// as a transition: a restart replays none.
public final class PresenceTracker: Sendable {
    private struct Device {
        var heard: ContinuousClock.Instant
        var last: EncodedLocation
        /// The slice `heard` falls in.
        var slice: Int64
    }

    /// The online devices, and the same devices by the slice of time (an eighth of `tick`)
    /// they were last heard in: `expire` takes the slices that have passed whole and tests
    /// only the devices of the one at the edge, so it costs the devices that expire, not
    /// every online one (a scan of a million every tick kept a third of a core busy).
    private struct State {
        var devices: [String: Device] = [:]
        var slices: [Int64: Set<String>] = [:]
        /// No slice below it holds a device.
        var oldestSlice = Int64.max

        mutating func note(_ device: String, heard: ContinuousClock.Instant, last: EncodedLocation, slice: Int64) {
            let previous = devices.updateValue(Device(heard: heard, last: last, slice: slice), forKey: device)
            guard previous?.slice != slice else { return }
            if let previous { remove(device, from: previous.slice) }
            slices[slice, default: []].insert(device)
            oldestSlice = min(oldestSlice, slice)
        }

        mutating func remove(_ device: String, from slice: Int64) {
            slices[slice]?.remove(device)
            if slices[slice]?.isEmpty == true { slices[slice] = nil }
        }
    }

    /// How long a device may be silent and still be online.
    public let offlineAfter: Duration
    private let clock: any NodeClock
    private let state: Locked<State>
    private let gauge: Gauge?
    /// Where slices are counted from, and how long each is.
    private let origin: ContinuousClock.Instant
    private let sliceLength: Duration

    /// A tracker on `clock` with `offlineAfter`, counting online devices in `gauge`.
    public init(offlineAfter: Duration, clock: any NodeClock, gauge: Gauge? = nil) {
        self.offlineAfter = offlineAfter
        self.clock = clock
        self.gauge = gauge
        state = Locked(State())
        origin = clock.instant
        sliceLength = max(min(offlineAfter / 4, .seconds(1)) / 8, .milliseconds(1))
    }

    /// How often `expire` should run: a quarter of `offlineAfter`, at most a second.
    public var tick: Duration { min(offlineAfter / 4, .seconds(1)) }

    /// The slice holding `instant` (before `origin`: a negative one).
    private func slice(of instant: ContinuousClock.Instant) -> Int64 {
        Int64(((instant - origin) / sliceLength).rounded(.down))
    }

    /// Notes that `update` was heard now (a repeat of a seq already noted changes nothing).
    func heard(_ update: EncodedLocation) {
        let now = clock.instant
        let slice = slice(of: now)
        let added = state.withLock { state -> Bool in
            let device = update.location.device
            let known = state.devices[device]
            if let known, known.last.location.seq >= update.location.seq { return false }
            state.note(device, heard: now, last: update, slice: slice)
            return known == nil
        }
        if added { gauge?.add(1) }
    }

    /// Whether the device of `update` (its last known position) is online now.
    public func isOnline(_ update: EncodedLocation) -> Bool {
        let location = update.location
        let now = clock.instant
        let wall = clock.now
        let offlineAfter = offlineAfter
        let (known, added) = state.withLock { state -> (Bool, Bool) in
            if let device = state.devices[location.device] { return (now - device.heard <= offlineAfter, false) }
            let silent = Duration.milliseconds(Int64(wall.timeIntervalSince1970 * 1000) - location.ts)
            guard silent <= offlineAfter else { return (false, false) }
            let heard = now - max(silent, .zero)
            state.note(location.device, heard: heard, last: update, slice: slice(of: heard))
            return (true, true)
        }
        if added { gauge?.add(1) }
        return known
    }

    /// Forgets every device silent for longer than `offlineAfter` and returns their last
    /// positions: each goes offline once.
    func expire() -> [EncodedLocation] {
        let now = clock.instant
        let cutoff = now - offlineAfter
        let edge = slice(of: cutoff)
        let expired = state.withLock { state -> [EncodedLocation] in
            var expired: [EncodedLocation] = []
            var slice = state.oldestSlice
            while slice <= edge, !state.slices.isEmpty {
                defer { slice += 1 }
                guard let devices = state.slices.removeValue(forKey: slice) else { continue }
                var kept: Set<String> = []
                for device in devices {
                    guard let known = state.devices[device] else { continue }
                    guard known.heard < cutoff else {
                        kept.insert(device)
                        continue
                    }
                    state.devices[device] = nil
                    expired.append(known.last)
                }
                if !kept.isEmpty { state.slices[slice] = kept }
            }
            state.oldestSlice = state.slices.isEmpty ? .max : min(slice, edge)
            return expired
        }
        gauge?.add(-expired.count)
        return expired
    }
}
