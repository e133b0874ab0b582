import Dispatch
import Foundation
import Locking
import Testing

@testable import LocationStore

/// The writer gathers updates nobody waits for, so a commit holds many of them, and
/// takes the queue at once when somebody waits.
@Suite("store: gathering unawaited updates")
struct GatheringTests {
    @Test("unawaited updates are held for the gathering time and taken together")
    func gathers() {
        let (taken, seconds) = take(gathering: .seconds(2)) { try $0.submit(write(seq: 2)) }
        #expect(seconds >= 1.95)
        #expect(taken.operations.count == 2)
        #expect(taken.stop == nil)
    }

    @Test("an awaited update ends the gathering at once, with what was gathered before it")
    func awaitedEndsGathering() {
        let (taken, seconds) = take(gathering: .seconds(30)) { try $0.submit(write(seq: 2, completion: { _ in })) }
        #expect(seconds < 10)
        #expect(taken.operations.count == 2)
    }

    @Test("half the capacity queued ends the gathering at once")
    func halfFullEndsGathering() {
        let (taken, seconds) = take(gathering: .seconds(30)) { queue in
            try queue.submit(.write(StoreWrite(updates: (2...50).map { update("g-1", seq: $0) }, heardMillis: 0)))
        }
        #expect(seconds < 10)
        #expect(taken.operations.count == 2)
    }

    @Test("a stop ends the gathering at once")
    func stopEndsGathering() {
        let (taken, seconds) = take(gathering: .seconds(30)) { $0.stop(.flush) }
        #expect(seconds < 10)
        #expect(taken.operations.count == 1)
        #expect(taken.stop == .flush)
    }

    /// Submits an unawaited update to a queue gathering for `gathering`, takes the queue
    /// as the writer does on a thread of its own, and does `then` to the queue 50 ms later
    /// on the calling thread (not the busy dispatch pool): what the take got, and how many
    /// seconds it lasted.
    private func take(
        gathering: Duration, then: (WriteQueue) throws -> Void
    ) -> (taken: (operations: [StoreOperation], stop: WriteQueue.Stop?), seconds: Double) {
        let queue = WriteQueue(capacity: 100, gathering: gathering, path: "test")
        let began = Date()
        #expect(throws: Never.self) { try queue.submit(write(seq: 1)) }
        let taken = Locked<(operations: [StoreOperation], stop: WriteQueue.Stop?)>(([], nil))
        let done = DispatchSemaphore(value: 0)
        Thread {
            let result = queue.take(waitingAtMost: nil)
            taken.withLock { $0 = result }
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.05)
        #expect(throws: Never.self) { try then(queue) }
        done.wait()
        return (taken.withLock { $0 }, Date().timeIntervalSince(began))
    }
}

/// An update of device `g-1` with `seq`, as the queue holds it.
private func write(seq: UInt64, completion: CommitCompletion? = nil) -> StoreOperation {
    .write(StoreWrite(updates: [update("g-1", seq: seq)], heardMillis: 0, completion: completion))
}
