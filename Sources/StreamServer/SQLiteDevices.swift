import Foundation
import LocationStore
import LocstreamProtocol
import StreamCore

/// The embedded broker's `DeviceStore` on the SQLite `LocationStore` (`--store sqlite`,
/// the default): it hands the broker's writes to the store's writer thread and words the
/// store's errors for the publisher and the operator.
struct SQLiteDevices: DeviceStore {
    let store: LocationStore

    func load() throws(BrokerError) -> StoredDevices {
        let snapshot: StoreSnapshot
        do {
            snapshot = try store.load()
        } catch {
            throw BrokerError("cannot read the store: \(error)")
        }
        return StoredDevices(
            devices: snapshot.devices.map { StoredDevices.Device(last: $0.last, seq: $0.seq, lastHeard: $0.lastHeard) },
            seqFloor: snapshot.seqFloor)
    }

    func write(
        _ updates: [EncodedLocation], heardAt: Date, committed: (@Sendable (Result<Void, BrokerError>) -> Void)?
    ) throws(BrokerError) {
        do {
            try store.enqueue(updates, heardAt: heardAt, completion: Self.completion(reporting: committed))
        } catch {
            throw BrokerError("not published: the store cannot take more now (\(error)); retry later")
        }
    }

    func history(_ device: String, after seq: UInt64) throws(BrokerError) -> [EncodedLocation] {
        do {
            return try store.history(device, after: seq)
        } catch {
            throw BrokerError("cannot read history from the store: \(error)")
        }
    }

    func removeSilent(olderThan cutoff: Date) async throws(BrokerError) -> Int {
        do {
            return try await store.removeSilent(olderThan: cutoff)
        } catch {
            throw BrokerError("cannot remove silent devices from the store: \(error)")
        }
    }

    var isHealthy: Bool { store.isHealthy }

    func close() { store.close() }

    /// The store's completion for `committed`, with its errors worded; none without one.
    private static func completion(reporting committed: (@Sendable (Result<Void, BrokerError>) -> Void)?)
        -> CommitCompletion?
    {
        guard let committed else { return nil }
        return { result in committed(result.mapError(commitFailed)) }
    }

    /// A commit that failed: the update was delivered and stays queued for a retry, so
    /// whether it ends up stored is not known yet.
    private static func commitFailed(_ error: StoreError) -> BrokerError {
        BrokerError(
            "the store could not commit it (\(error)); it is kept and written when the disk recovers",
            outcomeUnknown: true)
    }
}
