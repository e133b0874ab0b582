import Locking
import Testing

/// A value set once and awaited by any number of tasks: every waiter wakes, the first
/// value wins, and a cancelled waiter returns nil without disturbing the others.
@Suite("one shot")
struct OneShotTests {
    @Test("a value set before anyone waits is returned at once")
    func alreadySet() async {
        let shot = OneShot<Int>()
        shot.fulfil(7)
        #expect(await shot.value() == 7)
        #expect(await shot.value() == 7)
    }

    @Test("every waiter suspended before the value is set wakes with it")
    func wakesEveryWaiter() async {
        let shot = OneShot<Int>()
        let waiters = (0..<8).map { _ in Task { await shot.value() } }
        try? await Task.sleep(for: .milliseconds(20))
        shot.fulfil(42)
        for waiter in waiters { #expect(await waiter.value == 42) }
    }

    @Test("only the first value counts; later ones are ignored")
    func onceOnly() async {
        let shot = OneShot<String>()
        let early = Task { await shot.value() }
        try? await Task.sleep(for: .milliseconds(10))
        shot.fulfil("first")
        shot.fulfil("second")
        #expect(await early.value == "first")
        #expect(await shot.value() == "first")
    }

    @Test("a cancelled waiter returns nil; the others still get the value")
    func cancellation() async {
        let shot = OneShot<Int>()
        let cancelled = Task { await shot.value() }
        let kept = Task { await shot.value() }
        try? await Task.sleep(for: .milliseconds(20))
        cancelled.cancel()
        #expect(await cancelled.value == nil)
        shot.fulfil(5)
        #expect(await kept.value == 5)
    }

    @Test("a task cancelled before it waits gets nil while unset, the value once set")
    func cancelledBeforeWaiting() async {
        let shot = OneShot<Void>()
        let unset = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await shot.value()
        }
        #expect(await unset.value == nil)
        shot.fulfil(())
        let set = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await shot.value()
        }
        #expect(await set.value != nil)
    }
}
