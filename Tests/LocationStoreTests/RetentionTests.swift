import Foundation
import Testing

@testable import LocationStore

/// Devices silent longer than the retention are removed with their history; a device
/// that comes back starts above the highest removed seq.
@Suite("store: retention")
struct RetentionTests {
    @Test("removeSilent removes the silent devices and their history, and raises the floor")
    func removesSilent() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(historySize: 3)
        let old = Date(timeIntervalSince1970: 1_700_000_000)
        let recent = Date(timeIntervalSince1970: 1_700_086_400)
        for seq in UInt64(1)...4 {
            try store.enqueue([update("old-1", seq: seq)], heardAt: old)
            try store.enqueue([update("old-2", seq: seq * 100)], heardAt: old)
            try store.enqueue([update("live", seq: seq)], heardAt: recent)
        }
        let removed = try await store.removeSilent(olderThan: Date(timeIntervalSince1970: 1_700_050_000))
        #expect(removed == 2)
        #expect(try await store.removeSilent(olderThan: Date(timeIntervalSince1970: 1_700_050_000)) == 0)
        let snapshot = try store.load()
        #expect(snapshot.devices.map(\.last.location.device) == ["live"])
        #expect(snapshot.seqFloor == 400)
        #expect(try store.history("old-2", after: 0).isEmpty)
        #expect(try store.history("live", after: 0).map(\.location.seq) == [2, 3, 4])
        store.close()

        let reopened = try fixture.open(historySize: 3)
        let again = try reopened.load()
        #expect(again.seqFloor == 400)
        let broker = SeqAssigner(again)
        broker.publish("old-1", to: reopened)
        #expect(broker.sent["old-1"] == [401])
        reopened.close()
    }
}
