import Testing

@testable import LocationStore

/// How a commit turns one device's updates into its history chunk and its row.
@Suite("store: one device's updates in a commit")
struct DeviceUpdatesTests {
    @Test("updates queued out of order: the chunk is in seq order, keeps the newest, ends at the highest seq")
    func outOfOrder() {
        var updates = DeviceUpdates()
        for seq in [UInt64(5), 2, 9, 7] {
            updates.add(update("d-1", seq: seq), heardMillis: Int64(seq), historySize: 10)
        }
        let chunk = updates.chunk(keeping: 3)
        #expect(chunk.lastSeq == 9 && chunk.count == 3)
        #expect(chunk.bodies == [5, 7, 9].flatMap { update("d-1", seq: $0).body + [UInt8(ascii: "\n")] })
        #expect(updates.newest?.location.seq == 9 && updates.heardMillis == 9)
    }

    @Test("updates queued in order: the chunk keeps them as they came")
    func inOrder() {
        var updates = DeviceUpdates()
        for seq in UInt64(1)...4 { updates.add(update("d-2", seq: seq), heardMillis: 0, historySize: 10) }
        let chunk = updates.chunk(keeping: 10)
        #expect(chunk.lastSeq == 4 && chunk.count == 4)
        #expect(chunk.bodies == (1...4).flatMap { update("d-2", seq: UInt64($0)).body + [UInt8(ascii: "\n")] })
        #expect(!updates.reachedTrim)
    }
}
