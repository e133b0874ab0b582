/// Latencies in microseconds, counted in fixed log-linear buckets (HDR-like).
///
/// Values below 64 µs have a bucket each; above, every power of two is split into 32
/// buckets, so a reported percentile is within about 3 % of the truth, from 1 µs to
/// about 9 hours. The memory is fixed (992 counters) whatever the number of samples,
/// and two histograms merge by adding their counters.
struct LatencyHistogram: Sendable, Equatable {
    /// Sub-buckets per power of two (and the count of exact buckets at the bottom, twice).
    static let subBuckets = 32
    private static let subBits = 5
    /// The largest value kept as itself; larger ones count in the top bucket.
    static let maxTrackable: Int64 = (1 << 35) - 1
    static let bucketCount = bucketIndex(maxTrackable) + 1

    private(set) var counts: [UInt64]
    /// How many values were recorded.
    private(set) var count: UInt64 = 0
    /// The smallest and largest recorded values, exactly (not rounded to a bucket).
    private(set) var min: Int64 = .max
    private(set) var max: Int64 = .min
    private var sum: Double = 0

    /// An empty histogram.
    init() { counts = Array(repeating: 0, count: Self.bucketCount) }

    /// Counts one value; negative values (clock steps) count as 0.
    mutating func record(_ value: Int64) {
        let clamped = Swift.min(Swift.max(value, 0), Self.maxTrackable)
        counts[Self.bucketIndex(clamped)] &+= 1
        count &+= 1
        sum += Double(clamped)
        if clamped < min { min = clamped }
        if clamped > max { max = clamped }
    }

    /// Adds every value of `other`.
    mutating func merge(_ other: LatencyHistogram) {
        guard other.count > 0 else { return }
        for index in counts.indices where other.counts[index] != 0 { counts[index] &+= other.counts[index] }
        count &+= other.count
        sum += other.sum
        min = Swift.min(min, other.min)
        max = Swift.max(max, other.max)
    }

    /// The mean of the recorded values, or nil when there are none.
    var mean: Double? { count == 0 ? nil : sum / Double(count) }

    /// The value at `quantile` (0…1): the upper bound of the bucket holding it, capped at
    /// the exact maximum. Nil when the histogram is empty.
    func value(atQuantile quantile: Double) -> Int64? {
        guard count > 0 else { return nil }
        let rank = Swift.max(1, UInt64((Swift.min(Swift.max(quantile, 0), 1) * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, bucketCount) in counts.enumerated() where bucketCount != 0 {
            seen &+= bucketCount
            if seen >= rank { return Swift.max(min, Swift.min(max, Self.upperBound(ofBucket: index))) }
        }
        return max
    }

    /// The bucket of a value in 0…`maxTrackable`.
    static func bucketIndex(_ value: Int64) -> Int {
        let unsigned = UInt64(value)
        guard unsigned >= UInt64(subBuckets * 2) else { return Int(unsigned) }
        let magnitude = 63 - unsigned.leadingZeroBitCount  // ≥ subBits + 1
        let shift = magnitude - subBits
        let sub = Int(unsigned >> UInt64(shift)) - subBuckets  // 0..<32
        return subBuckets * 2 + (shift - 1) * subBuckets + sub
    }

    /// The largest value that lands in bucket `index`.
    static func upperBound(ofBucket index: Int) -> Int64 {
        guard index >= subBuckets * 2 else { return Int64(index) }
        let shift = (index - subBuckets * 2) / subBuckets + 1
        let sub = (index - subBuckets * 2) % subBuckets
        return Int64((subBuckets + sub + 1) << shift) - 1
    }
}
