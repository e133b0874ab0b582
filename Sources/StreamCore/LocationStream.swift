import Locking
import LocstreamProtocol

/// The async stream of locations one subscription task iterates.
///
/// The hub pushes into it from the publishing thread; the task takes everything that
/// is ready in one `next()` (a batch), so a busy subscriber pays one wake-up for many
/// frames. It is bounded: past `capacity` queued updates it conflates, dropping the
/// oldest queued update of the same device (or the oldest of all), and counts that.
public final class LocationStream: AsyncSequence, Sendable {
    public typealias Element = [Publication]

    private struct State {
        var buffer: [Publication] = []
        var waiter: CheckedContinuation<[Publication]?, Never>?
        var isFinished = false
        var woken = false
    }

    private let state = Locked(State())
    private let capacity: Int
    private let onConflate: @Sendable (Int) -> Void

    /// A stream holding at most `capacity` queued updates; `onConflate` hears how many
    /// were dropped to stay within it.
    public init(capacity: Int = 1024, onConflate: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.capacity = Swift.max(capacity, 1)
        self.onConflate = onConflate
    }

    /// Adds an update; wakes the task if it is waiting.
    func push(_ update: Publication) {
        let (waiter, dropped) = state.withLock { state -> (CheckedContinuation<[Publication]?, Never>?, Int) in
            guard !state.isFinished else { return (nil, 0) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, 0)
            }
            var dropped = 0
            if state.buffer.count >= capacity {
                let device = update.update.location.device
                let index = state.buffer.firstIndex { $0.update.location.device == device } ?? 0
                state.buffer.remove(at: index)
                dropped = 1
            }
            state.buffer.append(update)
            return (nil, dropped)
        }
        waiter?.resume(returning: [update])
        if dropped > 0 { onConflate(dropped) }
    }

    /// Wakes the task with an empty batch (or, if it is busy, makes its next `next()`
    /// return at once): a timer's way to let it send what thinning held back.
    func wake() {
        let waiter = state.withLock { state in
            guard !state.isFinished else { return CheckedContinuation<[Publication]?, Never>?.none }
            defer { state.waiter = nil }
            state.woken = state.waiter == nil
            return state.waiter
        }
        waiter?.resume(returning: [])
    }

    /// Ends the stream: the task's next `next()` returns nil.
    func finish() {
        let waiter = state.withLock { state in
            state.isFinished = true
            state.buffer = []
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    public func makeAsyncIterator() -> Iterator { Iterator(stream: self) }

    /// Yields every ready update as one batch; nil at the end or on cancellation.
    public struct Iterator: AsyncIteratorProtocol {
        let stream: LocationStream

        public mutating func next() async -> [Publication]? {
            await stream.nextBatch()
        }
    }

    private func nextBatch() async -> [Publication]? {
        if let ready = take(orWait: nil) { return ready }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if let ready = take(orWait: continuation) { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// The ready batch (`.some`), the end (`.some(nil)`), or nil after installing `waiter`.
    private func take(orWait waiter: CheckedContinuation<[Publication]?, Never>?) -> [Publication]?? {
        state.withLock { state in
            if !state.buffer.isEmpty {
                defer { state.buffer = [] }
                state.woken = false
                return .some(state.buffer)
            }
            if state.isFinished || Task.isCancelled { return .some(nil) }
            if state.woken {
                state.woken = false
                return .some([])
            }
            if let waiter { state.waiter = waiter }
            return nil
        }
    }
}
