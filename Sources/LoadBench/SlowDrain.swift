import WebSocketTransport

/// Reads, at the end of a run, the subscribers that never read: what reached them, and
/// whether the server closed them.
struct SlowDrain: Sendable {
    let connections: [WebSocketConnection]
    let devices: Int
    /// How long to read them, at most.
    let patience: Duration

    /// Reads them all at once until each ends or `patience` is over.
    func run(expectedFrames: Int) async -> SlowOutcome {
        let shared = BenchShared()
        var outcome = SlowOutcome(connections: connections.count, expectedFrames: expectedFrames)
        let results = await withTaskGroup(of: (ended: Bool, code: UInt16?)?.self) { group in
            for connection in connections {
                group.addTask {
                    var receiver = FrameReceiver(shared: shared, devices: devices)
                    for await message in connection.messages {
                        receiver.receive(message.bytes, at: WallClock.micros())
                    }
                    receiver.flush()
                    return (!Task.isCancelled, connection.peerClose?.code)
                }
            }
            group.addTask {
                try? await Task.sleep(for: patience)
                return nil
            }
            var results: [(ended: Bool, code: UInt16?)] = []
            while let result = await group.next() {
                guard let result else {
                    group.cancelAll()
                    continue
                }
                results.append(result)
                if results.count == connections.count { group.cancelAll() }
            }
            return results
        }
        for result in results {
            if result.ended {
                outcome.closeCodes[result.code ?? 1006, default: 0] += 1
            } else {
                outcome.openAtEnd += 1
            }
        }
        outcome.counts = shared.snapshot().counts
        return outcome
    }
}
