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

    init(bounds: [Double]) {
        self.bounds = bounds.sorted()
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
