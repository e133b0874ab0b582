import Locking

/// The awaitable form of a `CommitCompletion`: give `completion` to `enqueue` (inside
/// the caller's critical section, so the order of writes is the order of seqs), then
/// `await wait()` outside it, for instance before acknowledging a publish. One task
/// waits for it.
public final class StoreCommit: Sendable {
    private enum State: Sendable {
        case pending(CheckedContinuation<Result<Void, StoreError>, Never>?)
        case done(Result<Void, StoreError>)
    }

    private let state = Locked(State.pending(nil))

    /// A commit not yet reported.
    public init() {}

    /// The completion to pass to `LocationStore.enqueue`.
    public var completion: CommitCompletion {
        { result in self.complete(result) }
    }

    /// Returns once the write is committed; throws the store's error if it failed.
    public func wait() async throws(StoreError) {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Void, StoreError>, Never>) in
            let known = state.withLock { state -> Result<Void, StoreError>? in
                if case .done(let result) = state { return result }
                state = .pending(continuation)
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
        try result.get()
    }

    private func complete(_ result: Result<Void, StoreError>) {
        let waiting = state.withLock { state -> CheckedContinuation<Result<Void, StoreError>, Never>? in
            guard case .pending(let continuation) = state else { return nil }
            state = .done(result)
            return continuation
        }
        waiting?.resume(returning: result)
    }
}
