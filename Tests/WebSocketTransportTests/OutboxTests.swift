import Testing

@testable import WebSocketTransport

/// The outbox's generation rule, which makes a stale frame after a switch impossible.
@Suite("outbox")
struct OutboxTests {
    private func frame(_ text: String) -> OutboundFrame { OutboundFrame(text: text) }

    @Test("data frames of a stale generation are refused; control frames always pass")
    func staleRefused() throws {
        var outbox = Outbox()
        _ = try outbox.append(frame("a"), generation: 0)
        _ = outbox.advance(to: 1, ack: frame("ack"))
        #expect(throws: SendRefusal.staleGeneration) { try outbox.append(frame("old"), generation: 0) }
        try outbox.append(frame("ctl"), generation: nil)
        try outbox.append(frame("new"), generation: 1)
        #expect(outbox.takeBatch(byteBudget: 1 << 20).map(\.body) == ["ack", "ctl", "new"].map { Array($0.utf8) })
    }

    @Test("advance purges queued data frames of older generations, keeps control frames, then queues the ack")
    func advancePurges() throws {
        var outbox = Outbox()
        try outbox.append(frame("d1"), generation: 0)
        try outbox.append(frame("c1"), generation: nil)
        try outbox.append(frame("d2"), generation: 0)
        #expect(outbox.advance(to: 1, ack: frame("ack")) == 2)
        #expect(outbox.queuedBytes == 5)
        #expect(outbox.takeBatch(byteBudget: 1 << 20).map(\.body) == ["c1", "ack"].map { Array($0.utf8) })
    }

    @Test("batches respect the byte budget but always take at least one frame")
    func batching() throws {
        var outbox = Outbox()
        for index in 0..<10 {
            try outbox.append(OutboundFrame(body: Array(repeating: UInt8(index), count: 100)), generation: nil)
        }
        #expect(outbox.takeBatch(byteBudget: 250).count == 2)
        #expect(outbox.takeBatch(byteBudget: 0).count == 1)
        #expect(outbox.takeBatch(byteBudget: 1 << 20).count == 7)
        #expect(outbox.queuedBytes == 0)
    }

    @Test("a close request refuses further frames; close drops what was queued")
    func closing() throws {
        var outbox = Outbox()
        try outbox.append(frame("x"), generation: nil)
        outbox.requestClose(CloseRequest(code: 1001))
        #expect(throws: SendRefusal.closed) { try outbox.append(frame("y"), generation: nil) }
        #expect(outbox.pendingClose?.code == 1001)
        #expect(outbox.close() == 1)
        #expect(outbox.queuedBytes == 0)
    }
}

/// The slow-consumer policy: conflation per key, or 4008, and a hard bound either way.
@Suite("outbox under a slow consumer")
struct SlowConsumerOutboxTests {
    private func location(_ device: String, _ seq: Int) -> OutboundFrame {
        OutboundFrame(
            body: Array("\(device):\(seq)".padding(toLength: 100, withPad: " ", startingAt: 0).utf8), key: device)
    }

    /// The device and seq of a frame made by `location`.
    private func parse(_ frame: OutboundFrame) -> (device: String, seq: Int) {
        let parts = String(decoding: frame.body, as: UTF8.self).split(separator: ":")
        return (String(parts[0]), Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? -1)
    }

    @Test("past the limit a newer frame replaces the queued one of its key; order per key is kept")
    func conflates() throws {
        var outbox = Outbox(policy: SlowConsumerPolicy(action: .conflate, maxQueuedBytes: 1000))
        var effects: [SendEffect] = []
        for seq in 0..<30 {
            for device in ["a", "b", "c"] { effects.append(try outbox.append(location(device, seq), generation: 0)) }
        }
        try outbox.append(OutboundFrame(text: "pong"), generation: nil)
        #expect(effects.contains(.conflated(dropped: 1)))
        #expect(outbox.queuedBytes <= 1000 + 3 * 100 + 4)
        let texts = outbox.takeBatch(byteBudget: 1 << 20).map { String(decoding: $0.body, as: UTF8.self) }
        #expect(texts.last == "pong", "control frames are never dropped")
        for device in ["a", "b", "c"] {
            let seqs = texts.filter { $0.hasPrefix(device + ":") }.compactMap {
                Int($0.dropFirst(2).trimmingCharacters(in: .whitespaces))
            }
            #expect(seqs == seqs.sorted(), "order per device")
            #expect(seqs.last == 29, "the newest position of every device is kept")
        }
    }

    @Test("more distinct keys than the limit holds: the oldest are dropped and counted, the connection stays open")
    func distinctKeysStayBounded() throws {
        var outbox = Outbox(policy: SlowConsumerPolicy(action: .conflate, maxQueuedBytes: 4000))
        var dropped = 0
        for seq in 0..<20_000 {
            if case .conflated(let count) = try outbox.append(location("d\(seq)", seq), generation: 0) {
                dropped += count
            }
            #expect(outbox.queuedBytes <= 4000)
        }
        #expect(dropped == 20_000 - 40, "each drop is counted")
        #expect(outbox.slotsHeld < 200, "40 live frames and at most as many holes (plus a small margin)")
        for _ in 0..<40 { try outbox.append(OutboundFrame(text: String(repeating: "e", count: 99)), generation: nil) }
        #expect(throws: SendRefusal.self, "control frames past twice the limit: the peer reads nothing") {
            try outbox.append(OutboundFrame(text: String(repeating: "e", count: 99)), generation: nil)
        }
    }

    @Test("a stalled peer under conflation holds a bounded number of slots, however long the flood")
    func stalledStaysBounded() throws {
        var outbox = Outbox(policy: SlowConsumerPolicy(action: .conflate, maxQueuedBytes: 4000))
        for seq in 0..<20_000 { try outbox.append(location("d\(seq % 40)", seq), generation: 0) }
        #expect(outbox.slotsHeld < 200, "40 live frames and at most as many holes (plus a small margin)")
        let frames = outbox.takeBatch(byteBudget: 1 << 20).map(parse)
        #expect(Set(frames.map(\.device)).count == 40)
        #expect(frames.allSatisfy { $0.seq >= 19_960 })
    }

    @Test("a slow reader taking small batches during conflation gets every key's frames in order, newest last")
    func slowReaderKeepsOrder() throws {
        var outbox = Outbox(policy: SlowConsumerPolicy(action: .conflate, maxQueuedBytes: 2000))
        var received: [String: [Int]] = [:]
        func take(_ budget: Int) {
            for (device, seq) in outbox.takeBatch(byteBudget: budget).map(parse) {
                received[device, default: []].append(seq)
            }
        }
        for seq in 0..<5_000 {
            try outbox.append(location("d\(seq % 7)", seq), generation: 0)
            if seq % 3 == 0 { take(250) }
        }
        while outbox.hasQueuedFrames { take(250) }
        #expect(outbox.slotsHeld == 0 && outbox.queuedBytes == 0)
        for (device, seqs) in received {
            #expect(seqs == seqs.sorted(), "order of \(device)")
            #expect((seqs.last ?? 0) >= 4_993, "the newest of \(device) arrives")
        }
    }

    @Test("with disconnect, past the limit the data is dropped and a 4008 close is pending")
    func disconnects() throws {
        var outbox = Outbox(policy: SlowConsumerPolicy(action: .disconnect, maxQueuedBytes: 1000))
        try outbox.append(OutboundFrame(text: "ack"), generation: nil)
        for seq in 0..<9 { try outbox.append(location("a", seq), generation: 0) }
        #expect(throws: SendRefusal.slowConsumer(dropped: 9)) { try outbox.append(location("a", 9), generation: 0) }
        #expect(outbox.pendingClose == SlowConsumerPolicy.closeRequest)
        #expect(outbox.takeBatch(byteBudget: 1 << 20).map(\.body) == [Array("ack".utf8)])
    }

    @Test("control frames past twice the limit close the connection whatever the policy")
    func hardBound() throws {
        var outbox = Outbox(policy: SlowConsumerPolicy(action: .conflate, maxQueuedBytes: 4096))
        var refusal: SendRefusal?
        for _ in 0..<200 {
            do { try outbox.append(OutboundFrame(text: String(repeating: "p", count: 100)), generation: nil) } catch {
                refusal = error
                break
            }
        }
        #expect(refusal == .slowConsumer(dropped: 0))
        #expect(outbox.queuedBytes <= 2 * 4096)
    }
}
