import Locking
import Testing

@testable import WebSocketTransport

/// The bounded queue between the service thread and a connection's task: order, the
/// watermarks, the hand-over to a waiting consumer, and the end.
@Suite("inbound queue")
struct InboundQueueTests {
    private func message(_ index: Int) -> InboundMessage { InboundMessage(bytes: Array("m\(index)".utf8)) }

    /// An empty queue and a task suspended in it as its waiter (as `next()` would be).
    private func waitingConsumer() async -> (Locked<InboundQueue>, Task<InboundMessage?, Never>) {
        let queue = Locked(InboundQueue())
        let consumer = Task {
            await withUnsafeContinuation { continuation in queue.withLock { $0.waiter = continuation } }
        }
        while queue.withLock({ $0.waiter == nil }) { await Task.yield() }
        return (queue, consumer)
    }

    @Test("messages come out in the order they arrived, then nil")
    func order() {
        var queue = InboundQueue()
        for index in 0..<10 { _ = queue.deliver(message(index)) }
        #expect(queue.count == 10)
        for index in 0..<5 { #expect(queue.pop() == message(index)) }
        for index in 10..<13 { _ = queue.deliver(message(index)) }
        for index in 5..<13 { #expect(queue.pop() == message(index)) }
        #expect(queue.pop() == nil)
        #expect(queue.count == 0)
    }

    @Test("deliver asks to pause reading exactly when the high watermark is reached")
    func highWatermark() {
        var queue = InboundQueue()
        var pauses: [Bool] = []
        for index in 0...InboundQueue.highWatermark { pauses.append(queue.deliver(message(index)).full) }
        #expect(pauses == Array(repeating: false, count: InboundQueue.highWatermark - 1) + [true, true])
        #expect(queue.count == InboundQueue.highWatermark + 1)
        // Drained below the watermark, it asks again only when it fills up again.
        while queue.count > InboundQueue.lowWatermark { _ = queue.pop() }
        let pausedAgain = queue.deliver(message(-1)).full
        #expect(!pausedAgain)
        #expect(InboundQueue.lowWatermark < InboundQueue.highWatermark)
    }

    @Test("a drained queue starts afresh: order holds across many fill-and-drain rounds")
    func rounds() {
        var queue = InboundQueue()
        var next = 0
        var expected = 0
        for round in 1...20 {
            for _ in 0..<(round * 7 % 90) {
                _ = queue.deliver(message(next))
                next += 1
            }
            while let popped = queue.pop() {
                #expect(popped == message(expected))
                expected += 1
            }
        }
        #expect(expected == next)
    }

    @Test("a parked handler goes to the next delivery, once; park refuses while messages wait")
    func parkedHandler() {
        var queue = InboundQueue()
        #expect(queue.park(Parcel(SilentHandler()), priority: .high) == .parked)
        let first = queue.deliver(message(1))
        #expect(first.handler?.parcel.open() != nil, "the first message starts a drain")
        #expect(queue.deliver(message(2)).handler == nil, "a drain holds it: no second one")
        #expect(queue.park(Parcel(SilentHandler()), priority: .high) == .messagesWaiting)
        #expect(queue.popAll() == [message(1), message(2)])
        #expect(queue.park(Parcel(SilentHandler()), priority: .high) == .parked)
        #expect(queue.deliver(message(3)).handler?.priority == .high)
        #expect(queue.park(Parcel(SilentHandler()), priority: .medium) == .messagesWaiting)
        #expect(queue.popAll() == [message(3)])
        #expect(queue.park(Parcel(SilentHandler()), priority: .medium) == .parked)
        #expect(queue.deliver(message(4)).handler?.priority == .medium, "it answers at the priority it parked with")
    }

    @Test("after finish, park says closed, and a parked handler is taken to be ended")
    func parkAfterFinish() {
        var queue = InboundQueue()
        #expect(queue.park(Parcel(SilentHandler()), priority: .high) == .parked)
        queue.finish()
        #expect(queue.takeParkedHandler()?.open() != nil)
        #expect(queue.takeParkedHandler() == nil)
        #expect(queue.park(Parcel(SilentHandler()), priority: .high) == .closed)
    }

    @Test("finish wakes a waiting consumer with nil and marks the end")
    func finishWakes() async {
        let (queue, consumer) = await waitingConsumer()
        queue.withLock { $0.finish() }
        #expect(await consumer.value == nil)
        #expect(queue.withLock { $0.isFinished && $0.waiter == nil })
    }

    @Test("after finish, queued messages can still be taken, then nil")
    func finishKeepsQueued() {
        var queue = InboundQueue()
        _ = queue.deliver(message(1))
        _ = queue.deliver(message(2))
        queue.finish()
        queue.resumeWaiter()  // no waiter: nothing happens
        #expect(queue.isFinished)
        #expect(queue.pop() == message(1))
        #expect(queue.pop() == message(2))
        #expect(queue.pop() == nil)
    }

    @Test("a deferred wake queues the messages; wake hands the waiter the oldest, the rest stay queued")
    func deferredWake() async {
        let (queue, consumer) = await waitingConsumer()
        let first = queue.withLock { $0.deliverDeferringWake(message(1)) }
        let second = queue.withLock { $0.deliverDeferringWake(message(2)) }
        #expect(!first.full && first.wake && second.wake)
        #expect(queue.withLock { $0.count == 2 && $0.waiter != nil })
        let woken = queue.withLock { $0.wake() }
        #expect(woken?.message == message(1))
        woken?.waiter.resume(returning: woken?.message)
        #expect(await consumer.value == message(1))
        #expect(queue.withLock { $0.wake() } == nil, "no waiter: nothing to wake")
        #expect(queue.withLock { $0.popAll() } == [message(2)])
        #expect(queue.withLock { $0.popAll() } == [])
    }

    @Test("finish gives a consumer whose wake was deferred the oldest message, not the end")
    func finishAfterDeferredDelivery() async {
        let (queue, consumer) = await waitingConsumer()
        _ = queue.withLock { $0.deliverDeferringWake(message(1)) }
        _ = queue.withLock { $0.deliverDeferringWake(message(2)) }
        queue.withLock { $0.finish() }
        #expect(await consumer.value == message(1))
        #expect(queue.withLock { $0.pop() } == message(2))
        #expect(queue.withLock { $0.pop() } == nil)
    }

    @Test("popAll takes every queued message in order, across a partly popped queue")
    func popAll() {
        var queue = InboundQueue()
        for index in 0..<10 { _ = queue.deliver(message(index)) }
        #expect(queue.pop() == message(0))
        #expect(queue.popAll() == (1..<10).map(message))
        #expect(queue.count == 0)
        _ = queue.deliver(message(10))
        #expect(queue.popAll() == [message(10)])
    }
}

/// A handler that answers nothing, for the parking tests.
private final class SilentHandler: MessageHandler {
    func handle(_ message: InboundMessage) async -> Bool { true }
    func end() {}
}
