import Locking

/// A write's commit, awaited: give `completion` to `DeviceStore.write` inside the
/// broker's critical section, then `await wait()` outside it, before the publisher is
/// answered.
final class PendingCommit: Sendable {
    private enum State {
        case pending(CheckedContinuation<Result<Void, BrokerError>, Never>?)
        case done(Result<Void, BrokerError>)
    }

    private let state = Locked(State.pending(nil))

    /// Reports the commit's outcome; only the first report counts.
    var completion: @Sendable (Result<Void, BrokerError>) -> Void {
        { result in self.complete(result) }
    }

    /// Returns once the write is committed; throws the store's error if it failed.
    func wait() async throws(BrokerError) {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Void, BrokerError>, Never>) in
            let known = state.withLock { state -> Result<Void, BrokerError>? in
                if case .done(let result) = state { return result }
                state = .pending(continuation)
                return nil
            }
            if let known { continuation.resume(returning: known) }
        }
        try result.get()
    }

    private func complete(_ result: Result<Void, BrokerError>) {
        let waiting = state.withLock { state -> CheckedContinuation<Result<Void, BrokerError>, Never>? in
            guard case .pending(let continuation) = state else { return nil }
            state = .done(result)
            return continuation
        }
        waiting?.resume(returning: result)
    }
}
