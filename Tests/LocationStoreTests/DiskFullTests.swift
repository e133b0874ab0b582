import Foundation
import Locking
import LocstreamProtocol
import TestSupport
import Testing

@testable import LocationStore

/// A full disk while running: the failed commits report it, the store turns unhealthy,
/// nothing stored before is lost, and it recovers by itself when space returns, writing
/// the updates that had failed.
@Suite("store: disk full")
struct DiskFullTests {
    @Test("on a small tmpfs: diskFull reported, unhealthy, then recovery with every update stored")
    func diskFull() async throws {
        guard let mount = try TmpfsMount(options: "size=2m", for: "store: disk full") else { return }
        let directory = mount.path + "/data"
        let store = try LocationStore.open(directory: directory, historySize: 20, queueCapacity: 100_000)
        let before = (1...20).map { update("keep-\($0)", seq: 1) }
        try store.enqueue(before)
        try await store.flush()

        let filler = try mount.fill(leaving: 96 * 1024)
        let padding = JSONValue.object(["pad": .string(String(repeating: "x", count: 400))])
        var failure: StoreError?
        var seq: UInt64 = 0
        // Health as the failed commit is reported, on the writer's thread: by the time this
        // task resumes, a retry may already have succeeded in space the store's own WAL
        // truncation freed (seen under ThreadSanitizer).
        let healthyAtFailure = Locked<Bool?>(nil)
        while failure == nil, seq < 5_000 {
            seq += 1
            let commit = OneShot<Result<Void, StoreError>>()
            try store.enqueue((0..<10).map { update("fill-\($0)", seq: seq, attrs: padding) }) { result in
                if case .failure = result { healthyAtFailure.withLock { $0 = store.isHealthy } }
                commit.fulfil(result)
            }
            do throws(StoreError) {
                try await commit.value()?.get()
            } catch {
                failure = error
            }
        }
        #expect(failure?.kind == .diskFull, "\(String(describing: failure))")
        #expect(failure?.path == directory + "/locstream.db")
        #expect(healthyAtFailure.withLock { $0 } == false)
        #expect(store.statistics.errors >= 1)

        try FileManager.default.removeItem(atPath: filler)
        for _ in 0..<100 where !store.isHealthy { try await Task.sleep(for: .milliseconds(100)) }
        #expect(store.isHealthy)
        try await store.flush()
        let snapshot = try store.load()
        let seqs = Dictionary(
            uniqueKeysWithValues: snapshot.devices.map { ($0.last.location.device, $0.last.location.seq) })
        #expect(seqs["fill-0"] == seq, "the update whose commit failed was written on recovery")
        #expect((1...20).allSatisfy { seqs["keep-\($0)"] == 1 })
        store.close()

        let reopened = try LocationStore.open(directory: directory, historySize: 20)
        #expect(try reopened.load().devices.count == 30)
        reopened.close()
    }
}
