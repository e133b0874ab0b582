import Testing

@testable import LocationStore

/// How history is laid out on disk: chunks appended to a rowid table, each kept whole in
/// its page, and a version 2 store (chunks in a table sorted by device) upgraded to it.
@Suite("store: history layout")
struct HistoryLayoutTests {
    @Test("a chunk of 30 updates (over 1,000 bytes) stays in its page: no overflow page")
    func noOverflow() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(historySize: 100)
        let updates = (UInt64(1)...30).map { update("overflow-1", seq: $0) }
        let chunkBytes = updates.reduce(0) { $0 + $1.body.count + 1 }
        #expect(chunkBytes > 1_002 && chunkBytes < 4_000, "beyond an index page's local payload, within a table's")
        try store.enqueue(updates)
        try await store.flush()
        #expect(try store.history("overflow-1", after: 0).map(\.location.seq) == Array(1...30))
        let connection = try SQLiteConnection(path: fixture.databasePath, create: false)
        #expect(try connection.integer("SELECT count(*) FROM history") == 1)
        #expect(
            try connection.integer("SELECT count(*) FROM dbstat WHERE name = 'history' AND pagetype = 'overflow'") == 0)
        store.close()
    }

    @Test("a version 2 store is upgraded to appended history, every chunk read back, the old table gone")
    func upgradeFromVersion2() async throws {
        let fixture = try StoreFixture()
        let version2 = StoreSchema(migrations: [StoreSchema.chunkedHistory])
        let old = try fixture.open(historySize: 8, schema: version2)
        for first in stride(from: UInt64(1), through: 10, by: 3) {
            try old.enqueue((first..<first + 3).flatMap { [update("v2-a", seq: $0), update("v2-b", seq: $0)] })
            try await old.flush()
        }
        old.close()
        let store = try fixture.open(historySize: 8)
        #expect(try store.history("v2-a", after: 0).map(\.location.seq) == Array(5...12))
        #expect(try store.history("v2-b", after: 9).map(\.body) == (10...12).map { update("v2-b", seq: $0).body })
        #expect(try store.load().devices.map(\.seq).sorted() == [12, 12])
        store.close()
        let connection = try SQLiteConnection(path: fixture.databasePath, create: false)
        #expect(try connection.integer("PRAGMA user_version") == 3)
        #expect(try connection.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'history_v2'") == 0)
        #expect(try connection.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'history_by_device'") == 1)
        #expect(try connection.integer("SELECT count(*) FROM pragma_table_list WHERE name = 'history' AND wr = 0") == 1)
    }
}
