import Locking
import Testing

@testable import StreamCore

/// The node's `TimerQueue` on a `ManualClock`: timers fire once, in deadline order and
/// not before their time; a cancelled one never fires; an earlier timer wakes the queue
/// sooner; and cancelled entries cannot pile up.
@Suite("timer queue")
struct TimerQueueTests {
    let clock = ManualClock()
    let fired = Locked<[Int]>([])

    private func record(_ value: Int) -> @Sendable () -> Void {
        { [fired] in fired.withLock { $0.append(value) } }
    }

    /// Waits (yielding, up to a generous bound) until the fired timers are `expected`.
    private func fired(_ expected: [Int]) async -> Bool {
        for _ in 0..<100_000 {
            if fired.withLock({ $0 }) == expected { return true }
            await Task.yield()
        }
        return fired.withLock { $0 } == expected
    }

    @Test("timers fire once each, in deadline order, when the clock reaches them")
    func order() async {
        let timers = TimerQueue(clock: clock)
        timers.schedule(after: .seconds(3), record(3))
        timers.schedule(after: .seconds(1), record(1))
        timers.schedule(after: .seconds(2), record(2))
        #expect(await clock.waitForSleepers())
        clock.advance(by: .milliseconds(900))
        #expect(clock.sleeping == 1)
        #expect(fired.withLock { $0 }.isEmpty)
        clock.advance(by: .milliseconds(100))
        #expect(await fired([1]))
        #expect(await clock.waitForSleepers())
        clock.advance(by: .seconds(5))
        #expect(await fired([1, 2, 3]))
        #expect(timers.count == 0)
        // With nothing left the waiting task ends instead of sleeping on.
        #expect(clock.sleeping == 0)
    }

    @Test("a timer earlier than the queue's wake-up fires on time")
    func earlierTimer() async {
        let timers = TimerQueue(clock: clock)
        timers.schedule(after: .seconds(60), record(60))
        #expect(await clock.waitForSleepers())
        timers.schedule(after: .seconds(1), record(1))
        clock.advance(by: .seconds(1))
        #expect(await fired([1]))
        #expect(timers.count == 1)
    }

    @Test("a cancelled timer never fires; timers that share its deadline still do")
    func cancel() async {
        let timers = TimerQueue(clock: clock)
        let cancelled = timers.schedule(after: .seconds(1), record(0))
        timers.schedule(after: .seconds(1), record(1))
        timers.cancel(cancelled)
        #expect(timers.count == 1)
        #expect(await clock.waitForSleepers())
        clock.advance(by: .seconds(2))
        #expect(await fired([1]))
        timers.cancel(cancelled)
        #expect(timers.count == 0)
    }

    @Test("a timer due already fires at once")
    func dueAlready() async {
        let timers = TimerQueue(clock: clock)
        timers.schedule(after: .seconds(-1), record(1))
        #expect(await fired([1]))
    }

    @Test("scheduling and cancelling in a loop keeps the heap near the live timers")
    func cancelledEntriesAreBounded() {
        let timers = TimerQueue(clock: clock)
        timers.schedule(after: .seconds(3600), record(1))
        for _ in 0..<10_000 {
            timers.cancel(timers.schedule(after: .seconds(1800), record(0)))
        }
        #expect(timers.count == 1)
        #expect(timers.storedEntries <= 65)
    }
}
