import Foundation
import Locking
import LocstreamProtocol
import Testing

@testable import LocationStore

/// What a node gets back after a clean restart: seqs, last positions (byte for byte),
/// last-heard times and history.
@Suite("store: reload and history")
struct StoreReloadTests {
    @Test("after close and reopen: each device's seq, last position and last-heard time, and its history")
    func reload() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(historySize: 3)
        let heard = Date(timeIntervalSince1970: 1_800_000_000.25)
        for seq in UInt64(1)...5 {
            try store.enqueue([update("r-1", seq: seq), update("r-2", seq: seq * 10)], heardAt: heard)
        }
        let withAttributes = update("r-3", seq: 1, attrs: .object(["plate": .string("B-LS 42")]))
        try store.enqueue([withAttributes], heardAt: heard)
        store.close()

        let reopened = try fixture.open(historySize: 3)
        let snapshot = try reopened.load()
        #expect(!snapshot.recoveredFromCrash)
        let devices = Dictionary(uniqueKeysWithValues: snapshot.devices.map { ($0.last.location.device, $0) })
        #expect(devices.keys.sorted() == ["r-1", "r-2", "r-3"])
        #expect(devices["r-1"]?.seq == 5)
        #expect(devices["r-1"]?.last.body == update("r-1", seq: 5).body)
        #expect(devices["r-1"]?.last.location == update("r-1", seq: 5).location)
        #expect(devices["r-2"]?.seq == 50)
        #expect(devices["r-3"]?.last.location == withAttributes.location)
        #expect(devices["r-3"]?.last.body == withAttributes.body)
        #expect(devices["r-1"]?.lastHeard.timeIntervalSince1970 == 1_800_000_000.25)
        #expect(try reopened.history("r-1", after: 0).map(\.location.seq) == [3, 4, 5])
        #expect(try reopened.history("r-1", after: 4).map(\.location.seq) == [5])
        #expect(try reopened.history("r-1", after: 5).isEmpty)
        #expect(try reopened.history("r-2", after: 25).map(\.body) == [30, 40, 50].map { update("r-2", seq: $0).body })
        #expect(try reopened.history("nobody", after: 0).isEmpty)
        reopened.close()
    }

    @Test("history keeps the newest historySize per device, trimmed as it goes, also across seq gaps")
    func trimming() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(historySize: 4)
        for seq in UInt64(1)...20 {
            try store.enqueue([update("t-1", seq: seq)])
            if seq % 3 == 0 { try await store.flush() }
        }
        try store.enqueue([update("t-1", seq: 1_000), update("t-1", seq: 1_001)])
        try await store.flush()
        #expect(try store.history("t-1", after: 0).map(\.location.seq) == [19, 20, 1_000, 1_001])
        #expect(try store.history("t-1", after: 19).map(\.location.seq) == [20, 1_000, 1_001])
        let connection = try SQLiteConnection(path: fixture.databasePath, create: false)
        let stored = try connection.integer("SELECT sum(count) FROM history")
        #expect(stored >= 4 && stored <= 12, "\(stored) updates stored, of 22 written, keeping 4")
        #expect(try connection.integer("SELECT min(last_seq) FROM history") >= 12)
        store.close()
    }

    @Test("with historySize 0 only the last position is kept")
    func noHistory() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(historySize: 0)
        for seq in UInt64(1)...3 { try store.enqueue([update("n-1", seq: seq)]) }
        try await store.flush()
        #expect(try store.history("n-1", after: 0).isEmpty)
        #expect(try store.load().devices.map(\.seq) == [3])
        store.close()
    }

    @Test("a device's stored seq never goes down, even if an older update is written late")
    func neverBackwards() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try store.enqueue([update("b-1", seq: 9)])
        try store.enqueue([update("b-1", seq: 4)])
        try await store.flush()
        #expect(try store.load().devices.map(\.last.location.seq) == [9])
        try store.enqueue([update("b-1", seq: 7)])
        try await store.flush()
        #expect(try store.history("b-1", after: 0).map(\.location.seq) == [4, 7, 9], "in seq order across chunks")
        store.close()
    }

    @Test("with sync full, what was committed is there after reopening")
    func fullSync() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(sync: .full)
        let commit = OneShot<Result<Void, StoreError>>()
        try store.enqueue([update("f-1", seq: 3)], completion: commit.fulfil)
        try await commit.value()?.get()
        store.abandon()
        let reopened = try fixture.open(sync: .full)
        #expect(try reopened.load().devices.map(\.last.location.seq) == [3])
        reopened.close()
    }
}
