import Testing

@testable import LocstreamClient

@Suite("since bookkeeping across reconnects")
struct SeqTrackerTests {
    static func location(_ device: String, _ seq: UInt64) -> Location {
        Location(device: device, lat: 1, lon: 2, ts: 3, seq: seq)
    }

    @Test("since names the last seq delivered per device; repeats and older seqs are dropped")
    func since() {
        var tracker = SeqTracker()
        let first = tracker.beginResume()
        let admitted = [("a", 5), ("b", 9), ("a", 6), ("a", 6), ("a", 4)].map { tracker.admit(Self.location($0, $1)) }
        let since = tracker.beginResume()
        #expect(first == [:])
        #expect(admitted == [true, true, true, false, false])
        #expect(since == ["a": 6, "b": 9])
    }

    @Test("a resume reports the seqs its replay skipped, per device, once")
    func gaps() {
        var tracker = SeqTracker()
        let opening = [("a", 5), ("b", 9), ("c", 1)].map { tracker.admit(Self.location($0, $1)) }
        _ = tracker.beginResume()
        // a: no gap; b: 10 and 11 missed; d: new, nothing to compare; a again: not the resume's gap.
        let replay = [("a", 6), ("b", 12), ("d", 40), ("a", 9)].map { tracker.admit(Self.location($0, $1)) }
        let gaps = tracker.finishResume()
        let again = tracker.finishResume()
        let since = tracker.beginResume()
        #expect(opening == [true, true, true] && replay == [true, true, true, true])
        #expect(gaps == ["b": SeqGap(lastSeen: 9, next: 12)])
        #expect(again == [:])
        #expect(since == ["a": 9, "b": 12, "c": 1, "d": 40])
    }

    @Test("a resumed device whose seqs started again (a --store memory restart) is delivered from its new seqs")
    func seqsStartedAgain() {
        var tracker = SeqTracker()
        let before = [("a", 7), ("b", 3)].map { tracker.admit(Self.location($0, $1)) }
        _ = tracker.beginResume()
        // Nothing replayed (the server no longer knows the devices): live locations follow the opening.
        #expect(tracker.finishResume() == [:])
        let after = [("a", 1), ("a", 2), ("a", 2), ("b", 3)].map { tracker.admit(Self.location($0, $1)) }
        #expect(before == [true, true])
        #expect(after == [true, true, false, false], "a counts on from 1; b's 3 is a repeat")
        #expect(tracker.previousOfAdmitted == 1, "a's 2 came after its 1")
        #expect(tracker.beginResume() == ["a": 2, "b": 3])
    }

    @Test("a gap holds exactly the seqs between its ends")
    func gapBounds() {
        let gap = SeqGap(lastSeen: 9, next: 12)
        #expect([9, 10, 11, 12].map(gap.contains) == [false, true, true, false])
    }
}

extension SeqTracker {
    /// The `since` of a resume with no byte bound.
    mutating func beginResume() -> [String: UInt64] {
        resume(SubscribeRequest(sub: "s", target: .devices(["a"])), maxBytes: .max).since
    }
}

extension SeqTrackerTests {
    @Test("a resubscribe of a busy area lists only as many recent devices as fit the byte bound")
    func byteBound() {
        var tracker = SeqTracker()
        let long = String(repeating: "d", count: 120)
        for index in 0..<3000 { _ = tracker.admit(Self.location("\(long)\(index)", UInt64(index + 1))) }
        let area = SubscriptionTarget.area(.bbox(minLon: 13, minLat: 52, maxLon: 14, maxLat: 53))
        let request = tracker.resume(SubscribeRequest(sub: "s", target: area), maxBytes: 60_000)
        #expect(!request.since.isEmpty && request.since.count < 1000)
        #expect(request.since["\(long)2999"] == 3000, "the most recent is kept")
        #expect(ClientMessage.subscribe(request).encoded().count <= 60_000)
    }

    @Test("since names at most the limit's devices, those heard from last")
    func limit() {
        var tracker = SeqTracker(limit: 2)
        for (device, seq) in [("a", 1), ("b", 1), ("c", 1), ("a", 2)] {
            _ = tracker.admit(Self.location(device, UInt64(seq)))
        }
        let since = tracker.beginResume()
        #expect(since == ["a": 2, "c": 1])
    }
}
