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
            history = try connection.prepare(
                "SELECT bodies FROM history WHERE device = ?1 AND last_seq > ?2 ORDER BY last_seq DESC")
        }
    }

    private let statements: Locked<Statements?>
    private let path: String
    /// The most updates a history read returns: the device's newest.
    private let historySize: Int

    /// A reader of the store at `path`, which must exist, keeping `historySize` updates per device.
    init(path: String, historySize: Int) throws(StoreError) {
        self.path = path
        self.historySize = historySize
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
            let rows = try connection.prepare(
                "SELECT id, seq, heard, lat, lon, ts, speed, heading, acc, has_attrs, body FROM devices")
            while try rows.step() {
                let stored = UInt64(clamping: rows.int64(1))
                let heard = Date(timeIntervalSince1970: Double(rows.int64(2)) / 1000)
                devices.append(
                    StoredDevice(last: try lastPosition(rows), seq: state.resumeSeq(stored: stored), lastHeard: heard))
            }
            return StoreSnapshot(
                devices: devices, seqFloor: state.newDeviceFloor, recoveredFromCrash: recoveredFromCrash)
        }
    }

    /// The stored updates of `device` with a seq above `seq`, oldest first, at most the
    /// `historySize` newest (the writer trims lazily, so more may be stored).
    func history(_ device: String, after seq: UInt64) throws(StoreError) -> [EncodedLocation] {
        try statements.withLock { statements throws(StoreError) -> [EncodedLocation] in
            guard let history = statements?.history else { throw closed }
            history.bind(1, device)
            history.bind(2, seq: seq)
            var newestFirst: [EncodedLocation] = []
            while newestFirst.count < historySize, try history.step() {
                let chunk = history.blob(0).split(separator: UInt8(ascii: "\n"))
                for body in chunk.reversed() where newestFirst.count < historySize {
                    let update = try decode(Array(body))
                    if update.location.seq > seq { newestFirst.append(update) }
                }
            }
            history.reset()
            // Chunks are in seq order, unless an older update was written late: sort.
            return newestFirst.sorted { $0.location.seq < $1.location.seq }
        }
    }

    /// The last position in the current row of the devices query: from the columns,
    /// or, for a position with `attrs`, by parsing its body.
    private func lastPosition(_ rows: SQLiteStatement) throws(StoreError) -> EncodedLocation {
        let body = rows.blob(10)
        guard rows.int64(9) == 0, let lat = rows.double(3), let lon = rows.double(4) else { return try decode(body) }
        let location = Location(
            device: rows.text(0), lat: lat, lon: lon, ts: rows.int64(5), seq: UInt64(clamping: rows.int64(1)),
            speed: rows.double(6), heading: rows.double(7), acc: rows.double(8))
        return EncodedLocation(location: location, body: body)
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
