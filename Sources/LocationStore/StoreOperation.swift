import Dispatch
import LocstreamProtocol

/// What a caller is told once the transaction holding its write has committed, or
/// failed: called on the store's writer thread, so it must return quickly.
public typealias CommitCompletion = @Sendable (Result<Void, StoreError>) -> Void

/// Updates of one publication, committed together.
struct StoreWrite: Sendable {
    /// The updates, each with its seq assigned.
    var updates: [EncodedLocation]
    /// When they were heard, in milliseconds since 1970 (for retention).
    var heardMillis: Int64
    /// Told of the outcome; nil once told (a failed write is retried without it).
    var completion: CommitCompletion?
}

/// One entry of the writer's queue, done in order.
enum StoreOperation: Sendable {
    /// Stores updates.
    case write(StoreWrite)
    /// Removes the devices not heard from since `cutoffMillis`, and tells how many.
    case removeSilent(cutoffMillis: Int64, completion: @Sendable (Result<Int, StoreError>) -> Void)
    /// Makes the writer signal `reached`, then wait for `release` before going on
    /// (tests hold it to keep writes in the queue).
    case hold(reached: DispatchSemaphore, release: DispatchSemaphore)

    /// How many updates it adds to the queue.
    var updateCount: Int {
        if case .write(let write) = self { return write.updates.count }
        return 0
    }

    /// True when somebody waits for it to be done, so the writer must not hold it back
    /// to gather more (`WriteQueue.gathering`).
    var isAwaited: Bool {
        if case .write(let write) = self { return write.completion != nil }
        return true
    }

    /// Tells whoever waits for it that it failed with `error`.
    func fail(_ error: StoreError) {
        switch self {
        case .write(let write): write.completion?(.failure(error))
        case .removeSilent(_, let completion): completion(.failure(error))
        case .hold: break
        }
    }
}
