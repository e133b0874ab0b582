import Locking

/// The node's timers (a connection's auth deadline, its token's warning and expiry),
/// all waited on by one task, so an idle authenticated connection holds a heap entry
/// and its action, about a hundred bytes, instead of a task that sleeps (a task keeps
/// at least a kilobyte of frames for as long as it lives).
///
/// A heap, not a wheel: deadlines are few per connection and must fire on time to the
/// clock's precision, and a wheel would wake an idle node at every tick. The waiting
/// task sleeps until the earliest deadline and ends when no timer is left; a timer
/// earlier than its wake-up replaces it. Actions run on that task, so they must not block.
public final class TimerQueue: Sendable {
    /// A scheduled timer, for `cancel`.
    public struct Timer: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    private struct State {
        var heap = DeadlineHeap()
        var actions: [UInt64: @Sendable () -> Void] = [:]
        var nextID: UInt64 = 0
        /// The waiting task, its generation (a superseded one stops at its next step), and
        /// the deadline it sleeps until.
        var waiter: Task<Void, Never>?
        var generation: UInt64 = 0
        var wakesAt: ContinuousClock.Instant?
    }

    private let clock: any NodeClock
    private let state = Locked(State())

    /// Timers on `clock`.
    public init(clock: any NodeClock) {
        self.clock = clock
    }

    /// How many timers are scheduled and not yet fired or cancelled.
    public var count: Int { state.withLock { $0.actions.count } }

    /// How many heap entries are kept, cancelled ones included.
    var storedEntries: Int { state.withLock { $0.heap.count } }

    /// Runs `action` once `delay` has passed on the clock, unless cancelled first.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Timer {
        let deadline = clock.instant + delay
        return state.withLock { state in
            state.nextID += 1
            let id = state.nextID
            state.actions[id] = action
            state.heap.insert(DeadlineHeap.Entry(deadline: deadline, id: id))
            if state.wakesAt.map({ deadline < $0 }) ?? true { startWaiter(&state, until: deadline) }
            return Timer(id: id)
        }
    }

    /// Cancels `timer`; nothing happens if it has fired already. Its action is released
    /// at once; its heap entry goes when it reaches the top, or when cancelled entries
    /// outnumber live ones, so refreshing tokens in a loop cannot grow the heap.
    public func cancel(_ timer: Timer) {
        let action = state.withLock { state in
            let action = state.actions.removeValue(forKey: timer.id)
            if state.heap.count > 64, state.heap.count > 2 * state.actions.count {
                let live = state.actions
                state.heap.keep { live[$0.id] != nil }
            }
            return action
        }
        _ = action  // released outside the lock: its captures may run deinits
    }

    /// Replaces the waiting task with one that wakes at `deadline`.
    private func startWaiter(_ state: inout State, until deadline: ContinuousClock.Instant) {
        state.waiter?.cancel()
        state.generation += 1
        state.wakesAt = deadline
        let generation = state.generation
        state.waiter = Task { [weak self] in await self?.wait(generation: generation) }
    }

    /// Fires due timers and sleeps until the next, until no timer is left or a newer
    /// waiter takes over.
    private func wait(generation: UInt64) async {
        while true {
            let (due, sleep) = takeDue(generation: generation)
            for action in due { action() }
            guard let sleep else { return }
            guard (try? await clock.sleep(for: sleep)) != nil else { return }
        }
    }

    /// Removes the timers due now; returns their actions and how long to sleep until the
    /// next one, or nil when this waiter should end.
    private func takeDue(generation: UInt64) -> (due: [@Sendable () -> Void], sleep: Duration?) {
        state.withLock { state in
            guard state.generation == generation else { return ([], nil) }
            let now = clock.instant
            var due: [@Sendable () -> Void] = []
            while let top = state.heap.top, top.deadline <= now || state.actions[top.id] == nil {
                state.heap.removeTop()
                if let action = state.actions.removeValue(forKey: top.id) { due.append(action) }
            }
            guard let next = state.heap.top else {
                state.waiter = nil
                state.wakesAt = nil
                return (due, nil)
            }
            state.wakesAt = next.deadline
            return (due, next.deadline - now)
        }
    }
}
