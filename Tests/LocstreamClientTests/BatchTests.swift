import LocstreamClient
import Testing

/// The client over a transport that hands over frames in batches (`receiveBatch`), as the
/// lws transport does under load: one wake-up of the reader and of the iterator per batch,
/// and nothing else changes.
@Suite("client reading frames in batches", .timeLimit(.minutes(1)))
struct BatchTests {
    let transport = ScriptedTransport(batching: true)

    /// Starts a sequence of devices `a` and `b` and returns its iterator, its connection and
    /// its `sub`, with nothing delivered yet.
    func started(bufferLimit: Int = 4096) async throws -> (LocationUpdates.Iterator, ScriptedConnection, String) {
        let client = ScriptedServerTests.client(transport, bufferLimit: bufferLimit)
        let updates = client.locations(of: ["a", "b"]).makeAsyncIterator()
        let connection = try #require(await transport.opened.next())
        let sub = try #require(ScriptedServerTests.sub(of: await connection.nextSent()))
        return (updates, connection, sub)
    }

    @Test("a batch's updates come in order; repeats are dropped and the opening ends where it should")
    func order() async throws {
        var (updates, connection, sub) = try await started()
        var frames: [ServerMessage] = [.subscribed(sub: sub, restarted: false, snapshot: 2)]
        frames.append(.loc(sub: sub, location: ScriptedServerTests.located("a", 5)))
        // A repeat: the tracker drops it, and the opening counts it.
        frames.append(.loc(sub: sub, location: ScriptedServerTests.located("a", 5)))
        for seq in 6...300 {
            frames.append(.loc(sub: sub, location: ScriptedServerTests.located(seq % 2 == 0 ? "a" : "b", UInt64(seq))))
        }
        frames.append(.loc(sub: "other", location: ScriptedServerTests.located("a", 1000)))  // not this sequence's
        frames.append(.leave(sub: sub, device: "b"))
        for frame in frames { connection.deliver(frame) }
        var expected: [LocationUpdate] = [.location(ScriptedServerTests.located("a", 5)), .snapshotEnd]
        for seq in 6...300 {
            expected.append(.location(ScriptedServerTests.located(seq % 2 == 0 ? "a" : "b", UInt64(seq))))
        }
        expected.append(.left(device: "b"))
        var taken: [LocationUpdate] = []
        while taken.count < expected.count, let update = try await updates.next() { taken.append(update) }
        #expect(taken == expected)
    }

    @Test("the previous seq of each delivery is its device's, across batches")
    func previousSeqs() async throws {
        var (updates, connection, sub) = try await started()
        connection.deliver(.subscribed(sub: sub, restarted: false, snapshot: 0))
        for seq in 1...40 {
            connection.deliver(.loc(sub: sub, location: ScriptedServerTests.located("a", UInt64(seq))))
        }
        var previous: [UInt64?] = []
        while previous.count < 41, let delivery = try await updates.nextDelivery() {
            if case .location = delivery.update { previous.append(delivery.previousSeq) } else { previous.append(0) }
            if previous.count == 20 {
                for seq in 41...60 {
                    connection.deliver(.loc(sub: sub, location: ScriptedServerTests.located("a", UInt64(seq))))
                }
            }
        }
        #expect(previous == [0, nil] + (1...39).map { UInt64($0) })
    }

    @Test("unsubscribed in the middle of a batch ends the sequence: nothing after it is delivered")
    func endedMidBatch() async throws {
        var (updates, connection, sub) = try await started()
        connection.deliver(.subscribed(sub: sub, restarted: false, snapshot: 0))
        connection.deliver(.loc(sub: sub, location: ScriptedServerTests.located("a", 1)))
        connection.deliver(.unsubscribed(sub: sub))
        connection.deliver(.loc(sub: sub, location: ScriptedServerTests.located("a", 2)))
        var taken: [LocationUpdate] = []
        await #expect(throws: LocstreamError.endedByServer) {
            while let update = try await updates.next() { taken.append(update) }
        }
        #expect(taken == [.snapshotEnd, .location(ScriptedServerTests.located("a", 1))])
    }

    @Test("a full buffer stops the reading after the batch that filled it; every location still comes")
    func backpressure() async throws {
        let limit = 8
        var (updates, connection, sub) = try await started(bufferLimit: limit)
        connection.deliver(.subscribed(sub: sub, restarted: false, snapshot: 0))
        try await Task.sleep(for: .milliseconds(5))
        for seq in 1...30 {
            connection.deliver(.loc(sub: sub, location: ScriptedServerTests.located("a", UInt64(seq))))
        }
        // The reader takes whatever is queued as one batch, so it may overshoot the limit
        // once; then it waits until the iterator has taken a batch.
        var taken: [LocationUpdate] = []
        for seq in 31...200 {
            connection.deliver(.loc(sub: sub, location: ScriptedServerTests.located("a", UInt64(seq))))
            if seq % 10 == 0, let update = try await updates.next() { taken.append(update) }
        }
        while taken.count < 201, let update = try await updates.next() { taken.append(update) }
        #expect(taken == [.snapshotEnd] + (1...200).map { .location(ScriptedServerTests.located("a", UInt64($0))) })
    }
}
