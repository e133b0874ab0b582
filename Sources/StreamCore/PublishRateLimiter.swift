import Locking

/// One publish rate limit per identity (`PublishIdentity`), shared by every connection
/// and HTTP request of that identity: a token bucket of `burst` locations refilled at
/// `rate` per second.
///
/// The table is bounded by `maxIdentities`. An identity whose bucket has refilled is
/// idle and is forgotten by the next sweep (a new bucket starts full, so nothing is
/// lost). Sweeps run every `sweepInterval`, and at most once a second while the table
/// is full; a new identity that finds it full of active ones is refused.
public final class PublishRateLimiter: Sendable {
    private struct Table {
        var buckets: [PublishIdentity: TokenBucket] = [:]
        var lastSweep: ContinuousClock.Instant
    }

    /// Locations per second, on average.
    public let rate: Double
    /// Locations in a burst.
    public let burst: Double
    /// The most identities tracked at once.
    public let maxIdentities: Int
    private let sweepInterval: Duration
    private let table: Locked<Table>

    /// A limiter of `rate` per second and `burst`, tracking at most `maxIdentities`.
    public init(
        rate: Double, burst: Double, maxIdentities: Int = 100_000, sweepInterval: Duration = .seconds(60),
        now: ContinuousClock.Instant = .now
    ) {
        self.rate = rate
        self.burst = burst
        self.maxIdentities = maxIdentities
        self.sweepInterval = sweepInterval
        table = Locked(Table(lastSweep: now))
    }

    /// Takes `count` locations from `identity`'s budget; nil when allowed. A batch larger
    /// than the burst can never pass, and its refusal says so (with no time to retry).
    public func take(_ count: Int, for identity: PublishIdentity, now: ContinuousClock.Instant = .now)
        -> PublishRefusal?
    {
        table.withLock { table in
            sweepIfDue(&table, now: now)
            if table.buckets[identity] == nil {
                guard table.buckets.count < maxIdentities else {
                    return PublishRefusal(
                        reason: .identitiesFull, retryAfterSeconds: 1,
                        message: "too many publishers at once on this server; retry shortly")
                }
                table.buckets[identity] = TokenBucket(capacity: burst, refillPerSecond: rate, now: now)
            }
            guard table.buckets[identity]?.take(Double(count), now: now) == false,
                let bucket = table.buckets[identity]
            else { return nil }
            guard Double(count) <= burst else {
                return PublishRefusal(
                    reason: .rateLimited, retryAfterSeconds: nil,
                    message: "\(count) locations at once is more than the burst of \(Int(burst)); send smaller batches")
            }
            let wait = bucket.secondsUntil(Double(count), now: now)
            return PublishRefusal(
                reason: .rateLimited, retryAfterSeconds: wait,
                message: "publishing faster than \(Int(rate)) locations/s (burst \(Int(burst))); retry in \(wait) s")
        }
    }

    /// Identities tracked now.
    public var identityCount: Int {
        table.withLock { $0.buckets.count }
    }

    private func sweepIfDue(_ table: inout Table, now: ContinuousClock.Instant) {
        let full = table.buckets.count >= maxIdentities
        guard now - table.lastSweep >= (full ? .seconds(1) : sweepInterval) else { return }
        table.lastSweep = now
        table.buckets = table.buckets.filter { !$0.value.isFull(at: now) }
    }
}
