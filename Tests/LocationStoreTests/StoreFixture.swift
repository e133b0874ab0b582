import Foundation
import LocstreamProtocol
import TestSupport

@testable import LocationStore

/// A data directory for one test and the ways the tests open a store in it.
struct StoreFixture {
    let temporary: TemporaryDirectory
    /// The data directory (inside the temporary one, so opening has to create it).
    let directory: String

    init() throws {
        temporary = try TemporaryDirectory(prefix: "locstream-store")
        directory = temporary.url.appendingPathComponent("data").path
    }

    /// The store's file.
    var databasePath: String { directory + "/locstream.db" }

    /// Creates the store's file as a plain SQLite database (no store opened it) and
    /// returns a connection to it, for a test to shape.
    func createDatabase() throws -> SQLiteConnection {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try SQLiteConnection(path: databasePath, create: true)
    }

    /// Opens the store, with the wall clock at `micros` (a small number, so the tests
    /// can reason about seqs; the real clock's floor is tested on its own).
    func open(
        historySize: Int = 5, capacity: Int = 1_000, sync: SyncMode = .normal, micros: UInt64 = 0,
        schema: StoreSchema = .current
    ) throws(StoreError) -> LocationStore {
        try LocationStore(
            directory: directory, sync: sync, historySize: historySize, queueCapacity: capacity, registry: nil,
            schema: schema, wallClockMicros: micros)
    }
}

/// An update of `device` with `seq`, at a position derived from the seq.
func update(_ device: String, seq: UInt64, attrs: JSONValue? = nil) -> EncodedLocation {
    EncodedLocation(
        Location(
            device: device, lat: 52 + Double(seq % 1000) / 10_000, lon: 13.4, ts: 1_700_000_000_000 + Int64(seq),
            seq: seq, speed: 3.5, attrs: attrs))
}

/// What the broker does, in miniature: hands out seqs per device above the store's
/// floors, enqueuing each update with its seq before anyone could see it.
final class SeqAssigner {
    private var seqs: [String: UInt64] = [:]
    private var floor: UInt64
    /// Every seq handed out, per device.
    private(set) var sent: [String: [UInt64]] = [:]

    init(_ snapshot: StoreSnapshot) {
        floor = snapshot.seqFloor
        for device in snapshot.devices { seqs[device.last.location.device] = device.seq }
    }

    /// Publishes one update of `device`; false when the store refused it (no seq is used).
    @discardableResult
    func publish(_ device: String, to store: LocationStore, heardAt: Date = Date()) -> Bool {
        let seq = (seqs[device] ?? floor) + 1
        do {
            try store.enqueue([update(device, seq: seq)], heardAt: heardAt)
        } catch {
            return false
        }
        seqs[device] = seq
        sent[device, default: []].append(seq)
        return true
    }
}
