import LocstreamProtocol

/// A token bucket: `capacity` tokens, refilled at `refillPerSecond`. Used for the
/// publish rate of each identity and for a connection's error budget.
public struct TokenBucket: Sendable {
    /// The most tokens the bucket holds (the burst).
    public let capacity: Double
    /// Tokens added per second.
    public let refillPerSecond: Double
    private var tokens: Double
    private var updated: ContinuousClock.Instant

    /// A full bucket.
    public init(capacity: Double, refillPerSecond: Double, now: ContinuousClock.Instant = .now) {
        self.capacity = capacity
        self.refillPerSecond = refillPerSecond
        tokens = capacity
        updated = now
    }

    /// Takes `count` tokens if that many are there; false (taking none) otherwise.
    public mutating func take(_ count: Double = 1, now: ContinuousClock.Instant = .now) -> Bool {
        tokens = available(at: now)
        updated = now
        guard tokens >= count else { return false }
        tokens -= count
        return true
    }

    /// Whether the bucket has refilled to `capacity` by `now`: forgetting it then loses
    /// nothing, since a new bucket starts full.
    public func isFull(at now: ContinuousClock.Instant) -> Bool {
        available(at: now) >= capacity
    }

    /// Seconds (rounded up, at least 1) until `count` tokens are there; `take` refused it.
    public func secondsUntil(_ count: Double, now: ContinuousClock.Instant) -> Int {
        let missing = min(count, capacity) - available(at: now)
        return max(1, Int((missing / refillPerSecond).rounded(.up)))
    }

    private func available(at now: ContinuousClock.Instant) -> Double {
        let elapsed = now - updated
        return min(capacity, tokens + max(elapsed.seconds, 0) * refillPerSecond)
    }
}
