/// A value that is set once and awaited by any number of tasks.
///
/// Waiting is cancellation-aware: a cancelled waiter returns `nil` at once.
public final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [UInt64: CheckedContinuation<Value?, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Locked(State())

    /// A value not yet set.
    public init() {}

    /// Sets the value and wakes every waiter; later calls are ignored.
    public func fulfil(_ value: Value) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value?, Never>] in
            guard state.value == nil else { return [] }
            state.value = value
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    /// Whether the value is set.
    public var isFulfilled: Bool { state.withLock { $0.value != nil } }

    /// The value, once set; `nil` if the waiting task is cancelled first.
    public func value() async -> Value? {
        let ticket = state.withLock { state -> UInt64 in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Value?? = state.withLock { state in
                    if let value = state.value { return .some(value) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiters[ticket] = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: ticket) }?.resume(returning: nil)
        }
    }
}
