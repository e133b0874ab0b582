import Synchronization

/// A Prometheus histogram with fixed bucket bounds, lock-free: one atomic add per
/// bucket and for the sum and count.
public final class Histogram: Sendable {
    /// The upper bounds of the buckets, ascending (the `+Inf` bucket is implied).
    public let bounds: [Double]
    private let buckets: [Counter]
    private let count = Atomic<Int>(0)
    /// The sum, in millionths of the unit, so it can be an integer atomic.
    private let sumMicros = Atomic<Int>(0)

    /// `bounds` as durations in seconds, for `DurationTally`.
    private let durationBounds: [Duration]

    init(bounds: [Double]) {
        precondition(bounds.count <= DurationTally.maxBuckets, "a histogram has at most 16 bucket bounds")
        self.bounds = bounds.sorted()
        durationBounds = self.bounds.map { Duration.nanoseconds(Int64(($0 * 1e9).rounded())) }
        buckets = bounds.map { _ in Counter() }
    }

    /// Records one observation.
    public func observe(_ value: Double) {
        if let index = bounds.firstIndex(where: { value <= $0 }) {
            buckets[index].increment()
        }
        count.add(1, ordering: .relaxed)
        sumMicros.add(Int((value * 1_000_000).rounded()), ordering: .relaxed)
    }

    /// Records one duration, in seconds.
    public func observe(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        observe(Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// How many observations it holds.
    public var observationCount: Int { count.load(ordering: .relaxed) }

    /// Counts `duration` in `tally`, to be recorded with the rest of its batch.
    public func observe(_ duration: Duration, into tally: inout DurationTally) {
        if let index = durationBounds.firstIndex(where: { duration <= $0 }) { tally.buckets[index] += 1 }
        tally.count += 1
        tally.sum += duration
    }

    /// Records what `tally` counted: one atomic add per bucket it touched, and one for
    /// the sum and one for the count.
    public func record(_ tally: DurationTally) {
        guard tally.count > 0 else { return }
        for index in buckets.indices where tally.buckets[index] > 0 {
            buckets[index].increment(by: tally.buckets[index])
        }
        count.add(tally.count, ordering: .relaxed)
        sumMicros.add(Int((tally.sum / .microseconds(1)).rounded()), ordering: .relaxed)
    }

    /// The exposition lines of this histogram under `name` (cumulative buckets).
    func render(name: String) -> String {
        var out = ""
        var cumulative = 0
        for (bound, bucket) in zip(bounds, buckets) {
            cumulative += bucket.count
            out += "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        let total = count.load(ordering: .relaxed)
        out += "\(name)_bucket{le=\"+Inf\"} \(total)\n"
        out += "\(name)_sum \(Double(sumMicros.load(ordering: .relaxed)) / 1_000_000)\n"
        out += "\(name)_count \(total)\n"
        return out
    }
}

/// Durations observed for one histogram over a batch (a subscription's frames of one
/// wake-up), kept on the caller's stack and recorded in one go: each observation is a
/// few comparisons of durations, with no conversion to seconds and no atomic operation.
public struct DurationTally: Sendable {
    /// The most bucket bounds a histogram may have, so a tally needs no allocation.
    static let maxBuckets = 16

    fileprivate var buckets = InlineArray<16, Int>(repeating: 0)
    fileprivate var count = 0
    fileprivate var sum = Duration.zero

    /// An empty tally.
    public init() {}
}
