import Foundation
import LocstreamProtocol
import Testing

@testable import LocationStore

/// The WAL stays bounded when the checkpointer gets no CPU: the writer checkpoints it
/// itself past `WALLimit`.
@Suite("store: the WAL's limit")
struct WALLimitTests {
    /// Commits `rounds` transactions of one update for each of 2,000 devices, the
    /// checkpointer never running; returns the largest WAL file seen after a commit, and
    /// the most one commit made it grow.
    private func walSizes(limit: Int, rounds: Int = 40) async throws -> (largest: Int, step: Int) {
        let fixture = try StoreFixture()
        let store = try LocationStore(
            directory: fixture.directory, sync: .normal, historySize: 5, queueCapacity: 10_000, registry: nil,
            schema: .current, wallClockMicros: 0, walLimitBytes: limit, checkpointInterval: .seconds(3600))
        defer { store.close() }
        var largest = 0
        var step = 0
        for round in UInt64(1)...UInt64(rounds) {
            try store.enqueue((0..<2000).map { update("w-\($0)", seq: round) }, heardAt: Date())
            try await store.flush()
            let size = (try? FileManager.default.attributesOfItem(atPath: fixture.databasePath + "-wal")[.size]) as? Int
            step = max(step, (size ?? 0) - largest)
            largest = max(largest, size ?? 0)
        }
        return (largest, step)
    }

    @Test("past the limit the writer checkpoints and the WAL starts over; without it the WAL keeps growing")
    func bounded() async throws {
        let limit = 1 << 20
        let unbounded = try await walSizes(limit: 1 << 30)
        let bounded = try await walSizes(limit: limit).largest
        // One round writes about a MiB of pages: the control grows by 40 of them.
        #expect(unbounded.largest > 20 * limit, "the control: a starved checkpointer lets the WAL grow")
        #expect(
            bounded <= limit + unbounded.step,
            "bounded: the limit plus one commit (\(bounded) bytes; a commit at most \(unbounded.step))")
    }
}
