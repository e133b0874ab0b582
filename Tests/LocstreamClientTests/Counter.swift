import Locking

/// A count shared by the closures of a test.
final class Counter: Sendable {
    private let value = Locked(0)

    /// Counts one more; returns the new count.
    func increment() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}
