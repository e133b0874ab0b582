import Foundation
import Locking
import LocstreamProtocol

/// The store's reads, on a connection of their own (WAL lets it read while the writer
/// writes): the snapshot at start, and the history a `since` replay needs beyond what
/// memory keeps. Reads see committed data only.
final class StoreReader: Sendable {
    private final class Statements {
        let connection: SQLiteConnection
        let history: SQLiteStatement

        init(_ connection: SQLiteConnection) throws(StoreError) {
            self.connection = connection
            history = try connection.prepare("SELECT body FROM history WHERE device = ?1 AND seq > ?2 ORDER BY seq")
        }
    }

    private let statements: Locked<Statements?>
    private let path: String

    /// A reader of the store at `path`, which must exist.
    init(path: String) throws(StoreError) {
        self.path = path
        statements = Locked(try Statements(SQLiteConnection(path: path, create: false)))
    }

    /// Every device's last position, seq and last-heard time, and the floors; whether
    /// the start recovered from a crash is the opener's to say.
    func load(recoveredFromCrash: Bool) throws(StoreError) -> StoreSnapshot {
        try statements.withLock { statements throws(StoreError) -> StoreSnapshot in
            guard let connection = statements?.connection else { throw closed }
            try connection.execute("BEGIN", doing: "starting the load")
            defer { connection.rollback() }
            let state = try SeqState.read(from: connection)
            let count = try connection.integer("SELECT count(*) FROM devices")
            var devices: [StoredDevice] = []
            devices.reserveCapacity(Int(count))
            let rows = try connection.prepare("SELECT seq, heard, body FROM devices")
            while try rows.step() {
                let stored = UInt64(clamping: rows.int64(0))
                let heard = Date(timeIntervalSince1970: Double(rows.int64(1)) / 1000)
                devices.append(
                    StoredDevice(last: try decode(rows.blob(2)), seq: state.resumeSeq(stored: stored), lastHeard: heard)
                )
            }
            return StoreSnapshot(
                devices: devices, seqFloor: state.newDeviceFloor, recoveredFromCrash: recoveredFromCrash)
        }
    }

    /// The stored updates of `device` with a seq above `seq`, oldest first.
    func history(_ device: String, after seq: UInt64) throws(StoreError) -> [EncodedLocation] {
        try statements.withLock { statements throws(StoreError) -> [EncodedLocation] in
            guard let history = statements?.history else { throw closed }
            history.bind(1, device)
            history.bind(2, seq: seq)
            var updates: [EncodedLocation] = []
            while try history.step() { updates.append(try decode(history.blob(0))) }
            return updates
        }
    }

    /// Closes the connection.
    func close() {
        statements.withLock { $0 = nil }
    }

    private func decode(_ body: [UInt8]) throws(StoreError) -> EncodedLocation {
        do {
            return try EncodedLocation(body: body)
        } catch {
            throw StoreError(.corrupt, path: path, reason: "a stored location cannot be decoded: \(error)")
        }
    }

    private var closed: StoreError { StoreError(.closed, path: path, reason: "the store is closed") }
}
