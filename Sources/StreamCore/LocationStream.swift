import Locking
import LocstreamProtocol

/// The async stream of locations one subscription task iterates.
///
/// The hub pushes into it from the publishing thread; the task takes everything that
/// is ready in one `next()` (a batch), so a busy subscriber pays one wake-up for many
/// frames. It is bounded: once `capacity` updates are queued, a new update of a device
/// that is already queued takes that device's place (the newest wins, in O(1)), and a
/// device not yet queued is appended, so the queue never holds more than `capacity`
/// or one update per device, whichever is larger. Each replacement is counted.
public final class LocationStream: AsyncSequence, Sendable {
    public typealias Element = [Publication]

    private struct State {
        var buffer: [Publication] = []
        /// The suspended task. Whoever resumes it takes it out under the lock first, so
        /// it is resumed exactly once (an unsafe continuation: no allocation per wait).
        var waiter: UnsafeContinuation<[Publication]?, Never>?
        var isFinished = false
        var woken = false
        /// Index in `buffer` of each device's queued update; kept only while full.
        var positions: [String: Int]?
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
        let (waiter, dropped) = state.withLock { state -> (UnsafeContinuation<[Publication]?, Never>?, Int) in
            guard !state.isFinished else { return (nil, 0) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, 0)
            }
            guard state.buffer.count >= capacity else {
                state.buffer.append(update)
                return (nil, 0)
            }
            return (nil, Self.conflate(update, into: &state))
        }
        waiter?.resume(returning: [update])
        if dropped > 0 { onConflate(dropped) }
    }

    /// Puts `update` in place of its device's queued update, or appends it; returns
    /// how many updates were dropped (0 or 1).
    private static func conflate(_ update: Publication, into state: inout State) -> Int {
        let device = update.device
        if state.positions == nil {
            var positions: [String: Int] = [:]
            for (index, queued) in state.buffer.enumerated() { positions[queued.device] = index }
            state.positions = positions
        }
        if let index = state.positions?[device] {
            state.buffer[index] = update
            return 1
        }
        state.positions?[device] = state.buffer.count
        state.buffer.append(update)
        return 0
    }

    /// Wakes the task with an empty batch (or, if it is busy, makes its next `next()`
    /// return at once): a timer's way to let it send what thinning held back.
    func wake() {
        let waiter = state.withLock { state in
            guard !state.isFinished else { return UnsafeContinuation<[Publication]?, Never>?.none }
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
            await withUnsafeContinuation { continuation in
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
    private func take(orWait waiter: UnsafeContinuation<[Publication]?, Never>?) -> [Publication]?? {
        state.withLock { state in
            if !state.buffer.isEmpty {
                defer {
                    state.buffer = []
                    state.positions = nil
                }
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
