import Dispatch
import Foundation
import Glibc
import Locking
import Testing

@testable import LocationStore

/// The writer takes gathered updates in the background and is raised to nice 5 the moment
/// anything queued is due, even in the middle of a commit.
@Suite("store: the writer's priority")
struct WriterPriorityTests {
    /// `SCHED_IDLE` from `<linux/sched.h>`.
    static let idlePolicy: Int32 = 5

    /// Whether this process may bring a thread back from `SCHED_IDLE`; if not, the tests
    /// that need it say so and pass.
    static var mayAdapt: Bool {
        if WriterPriority.mayReturnFromIdle() { return true }
        print("skipped: this process may not return a thread from SCHED_IDLE (no CAP_SYS_NICE, RLIMIT_NICE < 15)")
        return false
    }

    @Test("a gathered take runs in the background; an awaited submit raises the writer mid-commit")
    func raisedMidCommit() throws {
        guard Self.mayAdapt else { return }
        let writer = WriterThread(adaptive: true)
        writer.takeAndHold()
        #expect(writer.policy == Self.idlePolicy)
        try writer.queue.submit(.write(StoreWrite(updates: [update("p-1", seq: 2)], heardMillis: 0) { _ in }))
        #expect(writer.policy == SCHED_OTHER, "raised by the submitting thread, while the commit still runs")
        #expect(writer.nice == 5)
        writer.release()
    }

    @Test("half the capacity outstanding raises the writer, and so does a stop")
    func raisedWhenBehindOrStopping() throws {
        guard Self.mayAdapt else { return }
        let behind = WriterThread(adaptive: true)
        behind.takeAndHold()
        try behind.queue.submit(.write(StoreWrite(updates: (2...50).map { update("p-1", seq: $0) }, heardMillis: 0)))
        #expect(behind.policy == SCHED_OTHER)
        behind.release()

        let stopping = WriterThread(adaptive: true)
        stopping.takeAndHold()
        stopping.queue.stop(.flush)
        #expect(stopping.policy == SCHED_OTHER)
        stopping.release()
    }

    @Test("work made urgent before the writer goes to the background keeps it at nice 5")
    func urgentWins() {
        guard Self.mayAdapt else { return }
        let writer = WriterThread(adaptive: true)
        writer.run { priority in priority.background(unless: { true }) }
        #expect(writer.policy == SCHED_OTHER)
        writer.run { priority in priority.background(unless: { false }) }
        #expect(writer.policy == Self.idlePolicy)
    }

    @Test("a priority that may not come back never goes to the background")
    func fixed() {
        let writer = WriterThread(adaptive: false)
        writer.takeAndHold()
        #expect(writer.policy == SCHED_OTHER)
        #expect(writer.nice == 5)
        #expect(!writer.queue.priority.isInBackground)
        writer.release()
    }
}

/// A thread standing in for the store's writer: it adopts a queue's priority and does
/// what the test asks, one step at a time.
private final class WriterThread: Sendable {
    let queue: WriteQueue
    private let steps = Locked<[@Sendable (WriteQueue) -> Void]>([])
    private let stepReady = DispatchSemaphore(value: 0)
    private let stepDone = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    /// A queue gathering for 10 ms with a priority that is `adaptive` or fixed, and its thread.
    init(adaptive: Bool) {
        queue = WriteQueue(
            capacity: 100, gathering: .milliseconds(10), path: "test", priority: WriterPriority(adaptive: adaptive))
        let (steps, stepReady, stepDone, queue) = (steps, stepReady, stepDone, queue)
        Thread {
            queue.priority.adoptCurrentThread()
            stepDone.signal()
            while true {
                stepReady.wait()
                guard let step = steps.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
                step(queue)
                stepDone.signal()
            }
        }.start()
        stepDone.wait()
    }

    deinit {
        stepReady.signal()
    }

    /// Runs `body` with the priority on the writer thread, and waits for it.
    func run(_ body: @escaping @Sendable (WriterPriority) -> Void) {
        steps.withLock { $0.append { queue in body(queue.priority) } }
        stepReady.signal()
        stepDone.wait()
    }

    /// Submits an unawaited update and has the writer take it as a gathered batch, then
    /// hold (as if committing) until `release`.
    func takeAndHold() {
        #expect(throws: Never.self) {
            try queue.submit(.write(StoreWrite(updates: [update("p-1", seq: 1)], heardMillis: 0)))
        }
        let released = released
        steps.withLock { $0.append { queue in _ = queue.take(waitingAtMost: nil) } }
        stepReady.signal()
        stepDone.wait()
        steps.withLock { $0.append { _ in released.wait() } }
        stepReady.signal()
    }

    /// Ends the hold of `takeAndHold`.
    func release() {
        released.signal()
        stepDone.wait()
    }

    /// The writer thread's scheduling policy now.
    var policy: Int32 { queue.priority.threadID.map { sched_getscheduler($0) } ?? -1 }

    /// The writer thread's nice value now.
    var nice: Int32 {
        queue.priority.threadID.map { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t($0)) } ?? -100
    }
}
