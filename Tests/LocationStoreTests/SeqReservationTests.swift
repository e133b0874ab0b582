import Foundation
import Testing

@testable import LocationStore

/// Seqs never go back or repeat: not after a crash with writes still queued (the
/// reservation the size of the queue), not after a lost data directory (the clock).
@Suite("store: seq reservation")
struct SeqReservationTests {
    @Test("the recovery floor: above everything stored plus the queue capacity, and the clock")
    func recoveryFloor() {
        let crashed = SeqState(epochFloor: 10, removedFloor: 500, highSeq: 300, openCapacity: 64)
        let started = crashed.started(capacity: 128, nowMicros: 0)
        #expect(started.epochFloor == 564)
        #expect(started.openCapacity == 128)
        #expect(crashed.started(capacity: 128, nowMicros: 9_000).epochFloor == 9_000)
        let clean = SeqState(epochFloor: 10, removedFloor: 500, highSeq: 300, openCapacity: 0)
        #expect(clean.started(capacity: 128, nowMicros: 0).epochFloor == 10)
        #expect(clean.started(capacity: 128, nowMicros: 9_000).epochFloor == 9_000, "every start: the clock")
        #expect(started.resumeSeq(stored: 3) == 564)
        #expect(started.resumeSeq(stored: 600) == 600)
        #expect(clean.newDeviceFloor == 500)
    }

    @Test("crash with writes queued: after reopening, every device continues above every seq sent")
    func crashWithQueuedWrites() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(capacity: 100)
        let broker = SeqAssigner(try store.load())
        for _ in 0..<10 { broker.publish("a", to: store) }
        broker.publish("b", to: store)
        try await store.flush()
        let hold = try store.holdWriter()
        var accepted = 0
        while broker.publish(["a", "b", "c"][accepted % 3], to: store) { accepted += 1 }
        #expect(accepted == 100)
        store.abandon(releasing: hold)

        let reopened = try fixture.open(capacity: 100)
        let snapshot = try reopened.load()
        #expect(snapshot.recoveredFromCrash)
        let stored = Dictionary(uniqueKeysWithValues: snapshot.devices.map { ($0.last.location.device, $0) })
        #expect(stored["a"]?.last.location.seq == 10)
        #expect(stored["c"] == nil)
        for (device, seqs) in broker.sent {
            let continuesAbove = stored[device]?.seq ?? snapshot.seqFloor
            #expect(continuesAbove >= seqs.max()!, "\(device) continues above \(continuesAbove), sent \(seqs.max()!)")
        }
        let after = SeqAssigner(snapshot)
        after.publish("a", to: reopened)
        after.publish("c", to: reopened)
        #expect(after.sent["a"]![0] > broker.sent["a"]!.max()!)
        #expect(after.sent["c"]![0] > broker.sent["c"]!.max()!)
        reopened.close()
    }

    @Test("a crash right after a recovery is covered again: the recovered floor was stored first")
    func crashAfterRecovery() async throws {
        let fixture = try StoreFixture()
        let first = try fixture.open(capacity: 50)
        let broker = SeqAssigner(try first.load())
        let firstHold = try first.holdWriter()
        while broker.publish("x", to: first) {}
        first.abandon(releasing: firstHold)

        let second = try fixture.open(capacity: 50)
        let resumed = SeqAssigner(try second.load())
        let secondHold = try second.holdWriter()
        while resumed.publish("x", to: second) {}
        second.abandon(releasing: secondHold)

        let third = try fixture.open(capacity: 50)
        let snapshot = try third.load()
        let highest = max(broker.sent["x"]!.max()!, resumed.sent["x"]!.max()!)
        #expect((snapshot.devices.first?.seq ?? snapshot.seqFloor) >= highest)
        #expect(Set(broker.sent["x"]!).isDisjoint(with: resumed.sent["x"]!))
        third.close()
    }

    @Test("a clean close keeps every seq; each start continues above its clock, so a restored backup repeats none")
    func cleanRestart() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let broker = SeqAssigner(try store.load())
        for _ in 0..<5 { broker.publish("k", to: store) }
        store.close()
        let reopened = try fixture.open()
        let snapshot = try reopened.load()
        #expect(!snapshot.recoveredFromCrash)
        #expect(snapshot.devices.map(\.seq) == [broker.sent["k"]!.max()!], "a clock at 0 moves nothing")
        reopened.close()
        let later = try fixture.open(micros: 1_000_000)
        #expect(try later.load().devices.map(\.seq) == [1_000_000], "above the clock of the start")
        later.close()
    }

    @Test("a new or lost data directory starts above the wall clock in microseconds")
    func lostDirectory() throws {
        let fixture = try StoreFixture()
        let before = UInt64(Date().timeIntervalSince1970 * 1_000_000)
        let store = try LocationStore.open(directory: fixture.directory, historySize: 1)
        let snapshot = try store.load()
        #expect(snapshot.seqFloor >= before)
        #expect(snapshot.seqFloor < UInt64(1) << 53)
        store.close()
    }
}
