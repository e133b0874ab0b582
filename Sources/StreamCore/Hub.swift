import Locking
import LocstreamProtocol

/// Which local subscription streams watch which device, and the fan-out to them.
///
/// A publication is encoded once (`EncodedLocation`) and the same bytes are pushed to
/// every stream watching its device: one dictionary lookup and one push per
/// subscriber, with no actor hop. When the first local subscriber of a device arrives
/// or the last one leaves, the hub tells `interestChanged`, so a shared broker holds
/// one upstream subscription per device however many clients watch it.
public final class Hub: Sendable {
    private struct Registry {
        var streams: [String: [LocationStream]] = [:]
        var entries = 0
    }

    private let registry = Locked(Registry())
    private let interestChanged: @Sendable (_ device: String, _ interested: Bool) -> Void

    /// A hub that reports first/last interest in a device to `interestChanged`.
    public init(interestChanged: @escaping @Sendable (String, Bool) -> Void = { _, _ in }) {
        self.interestChanged = interestChanged
    }

    /// Registers `stream` for each of `devices`.
    public func register(_ stream: LocationStream, for devices: [String]) {
        let firsts = registry.withLock { registry in
            devices.filter { device in
                registry.entries += 1
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
                registry.entries -= 1
                registry.streams[device] = streams.isEmpty ? nil : streams
                return streams.isEmpty
            }
        }
        for device in lasts { interestChanged(device, false) }
    }

    /// Pushes `update` to every stream watching its device.
    public func deliver(_ update: EncodedLocation) {
        guard let streams = registry.withLock({ $0.streams[update.location.device] }) else { return }
        let publication = Publication(update)
        for stream in streams { stream.push(publication) }
    }

    /// The number of (stream, device) registrations: the `hub_entries` gauge.
    public var entryCount: Int { registry.withLock { $0.entries } }
}
