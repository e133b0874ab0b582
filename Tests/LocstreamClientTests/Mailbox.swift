import Locking

/// A queue one task waits on: `post` from anywhere, `next` returns the oldest item, waiting
/// for one, or nil once `end` was called and the queue is empty.
final class Mailbox<Item: Sendable>: Sendable {
    private struct State {
        var items: [Item] = []
        var waiter: CheckedContinuation<Item?, Never>?
        var ended = false
    }

    private let state = Locked(State())

    /// An empty mailbox.
    init() {}

    /// Adds `item`, or hands it to the waiting task.
    func post(_ item: Item) {
        let waiter = state.withLock { state -> CheckedContinuation<Item?, Never>? in
            guard let waiter = state.waiter else {
                state.items.append(item)
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: item)
    }

    /// No more items: `next` returns nil once the queue is empty.
    func end() {
        let waiter = state.withLock { state in
            state.ended = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Every queued item, oldest first, waiting for one when none is queued; empty after
    /// `end`, or when the task is cancelled. One caller at a time.
    func nextAll() async -> [Item] {
        let queued = state.withLock { state in
            defer { state.items = [] }
            return state.items
        }
        if !queued.isEmpty { return queued }
        guard let first = await next() else { return [] }
        return [first]
            + state.withLock { state in
                defer { state.items = [] }
                return state.items
            }
    }

    /// The oldest item, waiting for one; nil after `end`, or when the task is cancelled (a
    /// test's time limit). One caller at a time.
    func next() async -> Item? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Item?? in
                    if !state.items.isEmpty { return .some(state.items.removeFirst()) }
                    if state.ended || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
