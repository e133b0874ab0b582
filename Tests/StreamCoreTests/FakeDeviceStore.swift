import Foundation
import Locking
import LocstreamProtocol
import StreamCore

/// A `DeviceStore` in memory whose commits a test releases by hand: writes wait in
/// `pending` until `commitAll` or `failAll`, and `load` returns what was committed, as a
/// restart would find it.
final class FakeDeviceStore: DeviceStore {
    private struct Write {
        let updates: [EncodedLocation]
        let heardAt: Date
        let committed: (@Sendable (Result<Void, BrokerError>) -> Void)?
    }

    private struct State {
        var pending: [Write] = []
        var committed: [String: [EncodedLocation]] = [:]
        var heard: [String: Date] = [:]
        var refusing = false
        var healthy = true
        var closed = false
        var historyReaders: [Int?] = []
    }

    private let state = Locked(State())
    /// The seq every stored device continues above when loaded (a crash recovery), if any.
    let resumeAbove: UInt64?
    /// The seq new devices start above when loaded.
    let seqFloor: UInt64

    /// An empty store; loads with `seqFloor` and, if given, `resumeAbove`.
    init(seqFloor: UInt64 = 0, resumeAbove: UInt64? = nil) {
        self.seqFloor = seqFloor
        self.resumeAbove = resumeAbove
    }

    /// A store holding what `other` committed, loading with `seqFloor` and `resumeAbove`.
    convenience init(restartOf other: FakeDeviceStore, seqFloor: UInt64 = 0, resumeAbove: UInt64? = nil) {
        self.init(seqFloor: seqFloor, resumeAbove: resumeAbove)
        let (committed, heard) = other.state.withLock { ($0.committed, $0.heard) }
        state.withLock { state in
            state.committed = committed
            state.heard = heard
        }
    }

    func load() throws(BrokerError) -> StoredDevices {
        state.withLock { state in
            StoredDevices(
                devices: state.committed.compactMap { device, updates in
                    guard let last = updates.last else { return nil }
                    return StoredDevices.Device(
                        last: last, seq: max(last.location.seq, resumeAbove ?? 0),
                        lastHeard: state.heard[device] ?? Date())
                },
                seqFloor: seqFloor)
        }
    }

    func write(
        _ updates: [EncodedLocation], heardAt: Date, committed: (@Sendable (Result<Void, BrokerError>) -> Void)?
    ) throws(BrokerError) {
        try state.withLock { (state) throws(BrokerError) in
            guard !state.refusing else { throw BrokerError("store: the write queue is full") }
            state.pending.append(Write(updates: updates, heardAt: heardAt, committed: committed))
        }
    }

    func history(_ device: String, after seq: UInt64) throws(BrokerError) -> [EncodedLocation] {
        let reader = withUnsafeCurrentTask { $0?.hashValue }
        return state.withLock { state in
            state.historyReaders.append(reader)
            return state.committed[device, default: []].filter { $0.location.seq > seq }
        }
    }

    func removeSilent(olderThan cutoff: Date) async throws(BrokerError) -> Int {
        state.withLock { state in
            let silent = state.heard.filter { $0.value < cutoff }.map(\.key)
            for device in silent {
                state.heard[device] = nil
                state.committed[device] = nil
            }
            return silent.count
        }
    }

    var isHealthy: Bool { state.withLock { $0.healthy } }

    func close() { state.withLock { $0.closed = true } }

    /// Writes waiting for their commit.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// The task each `history` read ran in (its hash; nil outside any task), in order.
    var historyReaders: [Int?] { state.withLock { $0.historyReaders } }

    /// Whether `close` was called.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// From now on `write` throws (a full queue) while `refusing`.
    func refuse(_ refusing: Bool) { state.withLock { $0.refusing = refusing } }

    /// Commits every waiting write and reports it.
    func commitAll() {
        let writes = state.withLock { state in
            defer { state.pending = [] }
            for write in state.pending {
                for update in write.updates { state.committed[update.location.device, default: []].append(update) }
                for update in write.updates { state.heard[update.location.device] = write.heardAt }
            }
            state.healthy = true
            return state.pending
        }
        for write in writes { write.committed?(.success(())) }
    }

    /// Fails every waiting write with `reason`, as a full disk would.
    func failAll(_ reason: String) {
        let writes = state.withLock { state in
            defer { state.pending = [] }
            state.healthy = false
            return state.pending
        }
        for write in writes { write.committed?(.failure(BrokerError(reason))) }
    }
}
