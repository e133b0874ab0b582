import Locking
import LocstreamProtocol
import Testing

@testable import LoadBench

/// A loc frame as the server sends it.
private func loc(sub: String, device: String, seq: UInt64, ts: Int64) -> [UInt8] {
    LocationFrame.prefix(sub: sub) + EncodedLocation(Location(device: device, lat: 1, lon: 2, ts: ts, seq: seq)).body
}

/// The bytes of `text`.
private func frame(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Per-device order checks, the buffered tallies and the receiver that feeds them.
@Suite("bench statistics")
struct BenchStatsTests {
    @Test("the sequence tracker tells next, gap, duplicate and out of order apart, per device")
    func sequenceVerdicts() {
        var tracker = SequenceTracker()
        #expect(tracker.observe(key: 1, seq: 10) == .next)
        #expect(tracker.observe(key: 1, seq: 11) == .next)
        #expect(tracker.observe(key: 1, seq: 14) == .gap(skipped: 2))
        #expect(tracker.observe(key: 1, seq: 14) == .duplicate)
        #expect(tracker.observe(key: 1, seq: 12) == .outOfOrder)
        #expect(tracker.observe(key: 1, seq: 15) == .next)
        #expect(tracker.observe(key: 2, seq: 3) == .next)
        tracker.reset()
        #expect(tracker.observe(key: 1, seq: 1) == .next)
        var counts = DeliveryCounts()
        var counting = SequenceTracker()
        for seq: UInt64 in [1, 2, 5, 5, 3, 9] { counting.count(key: 7, seq: seq, into: &counts) }
        #expect(counts.seqGaps == 2 && counts.seqSkipped == 5 && counts.duplicates == 1 && counts.outOfOrder == 1)
    }

    @Test("delivery counts add up; distinct leaves out duplicates and reordered frames")
    func countsAdd() {
        var total = DeliveryCounts(frames: 10, bytes: 100, seqGaps: 1, seqSkipped: 2, duplicates: 1)
        total.add(DeliveryCounts(frames: 5, bytes: 50, outOfOrder: 2, staleAfterAck: 1, errors: 3))
        #expect(
            total
                == DeliveryCounts(
                    frames: 15, bytes: 150, seqGaps: 1, seqSkipped: 2, outOfOrder: 2, duplicates: 1, staleAfterAck: 1,
                    errors: 3))
        #expect(total.distinct == 12)
    }

    @Test("a subscriber tally merges by second, when full, and on flush")
    func tallyFlushes() {
        let shared = Locked(BenchTally())
        shared.withLock { $0.originSecond = 100 }
        var tally = SubscriberTally()
        for offset in 0..<(SubscriberTally.capacity + 10) {
            tally.recordLatency(Int64(offset), at: 100_000_000 + Int64(offset), into: shared)
        }
        #expect(shared.withLock { $0.latency.count } == UInt64(SubscriberTally.capacity))
        tally.recordLatency(5000, at: 101_500_000, into: shared)
        tally.recordLatency(7000, at: 99_000_000, into: shared)
        tally.counts.frames = 3
        tally.flush(into: shared)
        let result = shared.withLock { $0 }
        #expect(result.latency.count == UInt64(SubscriberTally.capacity + 12))
        #expect(result.seconds.count == 2)
        #expect(result.seconds[0].frames == SubscriberTally.capacity + 10)
        #expect(result.seconds[1].frames == 1)
        #expect(result.counts.frames == 3)
    }

    @Test("the receiver checks order and sub, measures latency from the send time, and times switches")
    func receiver() {
        let shared = BenchShared()
        shared.tally.withLock { $0.originSecond = 1_764_421_200 }
        shared.sendTimes.record(micros: 1_764_421_200_123_400)
        var receiver = FrameReceiver(shared: shared, devices: 1)
        let now: Int64 = 1_764_421_200_125_400
        receiver.receive(frame(#"{"op":"welcome","conn":"c","node":"n","proto":1}"#), at: now)
        receiver.receive(frame(#"{"op":"subscribed","sub":"A","restarted":false,"snapshot":0}"#), at: now)
        receiver.receive(loc(sub: "A", device: "d", seq: 1, ts: 1_764_421_200_123), at: now)
        receiver.receive(loc(sub: "A", device: "d", seq: 3, ts: 1_764_421_200_123), at: now)
        shared.pendingSwitches.withLock { $0["B"] = now }
        receiver.receive(loc(sub: "A", device: "d", seq: 4, ts: 1_764_421_200_123), at: now)  // before the ack: fine
        receiver.receive(frame(#"{"op":"subscribed","sub":"B","restarted":true,"snapshot":0}"#), at: now + 1500)
        receiver.receive(loc(sub: "A", device: "d", seq: 5, ts: 1_764_421_200_123), at: now)  // stale
        receiver.receive(loc(sub: "B", device: "e", seq: 9, ts: 1_764_421_200_123), at: now)
        receiver.receive(frame(#"{"op":"error","code":"bad_request","message":"nope"}"#), at: now)
        receiver.receive(frame("garbage"), at: now)
        receiver.flush()
        let tally = shared.snapshot()
        #expect(tally.counts.frames == 5)
        #expect(tally.counts.staleAfterAck == 1)
        #expect(tally.counts.seqGaps == 1 && tally.counts.seqSkipped == 1)
        #expect(tally.counts.errors == 2)
        #expect(tally.errorSamples == ["bad_request: nope"])
        #expect(tally.subscribed == 1)
        #expect(tally.switchAck.count == 1 && tally.switchAck.max == 1500)
        #expect(tally.latency.min == 2000 && tally.latency.max == 2000)
        #expect(shared.frames.total == 5)
        #expect(shared.pendingSwitches.withLock { $0.isEmpty })
    }

    @Test("a ts the publisher did not record is measured from the start of its millisecond")
    func unknownTimestamp() {
        let times = SendTimes()
        times.record(micros: 5_000_250)
        #expect(times.origin(ofTimestamp: 5000) == 5_000_250)
        #expect(times.origin(ofTimestamp: 5001) == 5_001_000)
        #expect(times.origin(ofTimestamp: 5000 + 4096) == (5000 + 4096) * 1000)
    }

    @Test("the watch plan deals devices round-robin and counts what each device's updates should produce")
    func watchPlan() {
        let plan = WatchPlan(devices: 5, perSubscriber: 2, prefix: "p-")
        #expect(plan.deviceIndices(of: 0) == [0, 1])
        #expect(plan.deviceIndices(of: 2) == [4, 0])
        #expect(plan.deviceIndices(of: 0, shift: 1) == [2, 3])
        #expect(plan.watchers(of: 0..<5) == [2, 2, 2, 2, 2])
        #expect(plan.expectedFrames(of: 0..<2, published: [10, 1, 1, 1, 0]) == 13)
        #expect(plan.sub(of: 3) == "s3" && plan.sub(of: 3, shift: 2) == "s3.2")
        guard case .subscribe(let request) = try? ClientMessage.decode(plan.subscribeFrame(of: 1)) else {
            Issue.record("not a subscribe")
            return
        }
        #expect(request.sub == "s1" && request.target == .devices(["p-2", "p-3"]) && !request.snapshot)
    }

    @Test("capacity slope: the least-squares KiB per connection")
    func slope() {
        var outcome = CapacityOutcome()
        outcome.steps = [
            .init(connections: 0, serverRSS: 10_000, benchRSS: nil),
            .init(connections: 1000, serverRSS: 18_000, benchRSS: nil),
            .init(connections: 2000, serverRSS: 26_100, benchRSS: nil),
        ]
        #expect(abs((outcome.serverKiBPerConnection ?? 0) - 8.05) < 0.001)
        #expect(outcome.benchKiBPerConnection == nil)
        #expect(CapacityOutcome.slope([(5, 1), (5, 2)]) == nil)
    }

    @Test("delivered and expected per second count the window only; missing counts distinct frames")
    func loadFigures() {
        var tally = BenchTally()
        tally.originSecond = 0
        for second in Int64(0)..<3 {
            _ = tally.withSecond(second) { entry in
                entry.frames = 100
                entry.expected = 110
            }
        }
        tally.counts = DeliveryCounts(frames: 300, duplicates: 5)
        let outcome = LoadOutcome(
            tally: tally, expectedFrames: 310, windowSeconds: 2, subscribersConnected: 1, connectsPerSecond: 1,
            connectFailures: 0)
        #expect(outcome.deliveredPerSecond == 100)
        #expect(outcome.expectedPerSecond == 110)
        #expect(outcome.missing == 15)
        #expect(tally.withSecond(-1) { _ in 1 } == nil)
        #expect(tally.withSecond(Int64(BenchTally.maxSeconds)) { _ in 1 } == nil)
    }
}
