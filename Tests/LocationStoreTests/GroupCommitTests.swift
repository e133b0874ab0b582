import Foundation
import Locking
import LocstreamProtocol
import Testing

@testable import LocationStore

/// The writer thread commits in groups; completions come after the commit; the queue is
/// bounded and refuses rather than blocks.
@Suite("store: group commit and the bounded queue")
struct GroupCommitTests {
    @Test("many concurrent writers: fewer transactions than writes, every completion after its commit")
    func groups() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(historySize: 2, capacity: 100_000)
        let writers = 8
        let perWriter = 500
        let visibleAtCompletion = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for seq in UInt64(1)...UInt64(perWriter) {
                        let written = update("g-\(writer)", seq: seq)
                        let commit = OneShot<Result<Void, StoreError>>()
                        try store.enqueue([written]) { result in
                            // On the writer thread, after COMMIT: a reader sees this update (or,
                            // trimmed already, a newer one of the same transaction).
                            let seen = (try? store.history(written.location.device, after: seq - 1)) ?? []
                            if case .success = result, !seen.isEmpty {
                                visibleAtCompletion.withLock { $0 += 1 }
                            }
                            commit.fulfil(result)
                        }
                        if seq % 50 == 0 { try await commit.value()?.get() }
                    }
                }
            }
            try await group.waitForAll()
        }
        try await store.flush()
        let statistics = store.statistics
        #expect(statistics.rowsWritten == writers * perWriter)
        #expect(statistics.commits < writers * perWriter / 2, "\(statistics.commits) commits")
        #expect(visibleAtCompletion.withLock { $0 } == writers * perWriter)
        #expect(store.queuedUpdates == 0)
        store.close()
    }

    @Test("the queue refuses past its capacity without blocking, and accepts again once written")
    func bounded() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(capacity: 10)
        let release = try store.holdWriter()
        try store.enqueue((1...6).map { update("q-1", seq: $0) })
        try store.enqueue((7...10).map { update("q-1", seq: $0) })
        #expect(refusal { try store.enqueue([update("q-1", seq: 11)]) } == .queueFull)
        #expect(store.queuedUpdates == 10)
        release.signal()
        try await store.flush()
        try store.enqueue([update("q-1", seq: 11)])
        try await store.flush()
        #expect(try store.load().devices.map(\.seq) == [11])
        store.close()
        #expect(refusal { try store.enqueue([update("q-1", seq: 12)]) } == .closed)
    }

    @Test("close commits everything still queued before it returns")
    func closeFlushes() throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        for seq in UInt64(1)...200 { try store.enqueue([update("c-\(seq % 7)", seq: seq)]) }
        store.close()
        let reopened = try fixture.open()
        #expect(try reopened.load().devices.count == 7)
        reopened.close()
    }

    @Test("close called from a completion, on the writer thread, does not wait for itself")
    func closeFromCompletion() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let commit = OneShot<Result<Void, StoreError>>()
        try store.enqueue([update("z-1", seq: 1)]) { result in
            store.close()
            commit.fulfil(result)
        }
        try await commit.value()?.get()
        #expect(refusal { try store.enqueue([update("z-1", seq: 2)]) } == .closed)
    }
}
