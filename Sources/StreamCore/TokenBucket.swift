/// A token bucket: `capacity` tokens, refilled at `refillPerSecond`. Used for the
/// per-connection publish rate and the error budget.
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
        let elapsed = now - updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(capacity, tokens + max(seconds, 0) * refillPerSecond)
        updated = now
        guard tokens >= count else { return false }
        tokens -= count
        return true
    }
}
