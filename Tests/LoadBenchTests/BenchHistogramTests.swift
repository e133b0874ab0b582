import Testing

@testable import LoadBench

/// The log-bucketed latency histogram.
@Suite("bench latency histogram")
struct BenchHistogramTests {
    @Test("values below 64 have a bucket each")
    func exactAtTheBottom() {
        for value in Int64(0)..<64 {
            #expect(LatencyHistogram.bucketIndex(value) == Int(value))
            #expect(LatencyHistogram.upperBound(ofBucket: Int(value)) == value)
        }
    }

    @Test("buckets are contiguous, ordered and within about 3 % of their values")
    func bucketsTile() {
        var previousUpper: Int64 = -1
        for index in 0..<LatencyHistogram.bucketCount {
            let upper = LatencyHistogram.upperBound(ofBucket: index)
            #expect(upper > previousUpper)
            #expect(LatencyHistogram.bucketIndex(previousUpper + 1) == index)
            #expect(LatencyHistogram.bucketIndex(upper) == index)
            let lower = previousUpper + 1
            #expect(Double(upper - lower) <= Double(lower) / 32 + 1)
            previousUpper = upper
        }
        #expect(previousUpper == LatencyHistogram.maxTrackable)
    }

    @Test("percentiles of 1…10,000 µs")
    func percentiles() {
        var histogram = LatencyHistogram()
        for value in Int64(1)...10_000 { histogram.record(value) }
        #expect(histogram.count == 10_000)
        for (quantile, exact) in [(0.5, 5000.0), (0.9, 9000.0), (0.99, 9900.0), (0.999, 9990.0)] {
            let value = Double(histogram.value(atQuantile: quantile) ?? 0)
            #expect(value >= exact && value <= exact * 1.04, "q\(quantile) = \(value)")
        }
        #expect(histogram.value(atQuantile: 1) == 10_000)
        #expect(histogram.value(atQuantile: 0) == 1)
        #expect(histogram.min == 1 && histogram.max == 10_000)
        #expect(abs((histogram.mean ?? 0) - 5000.5) < 0.001)
    }

    @Test("an empty histogram has no percentiles; odd values are clamped")
    func edges() {
        var histogram = LatencyHistogram()
        #expect(histogram.value(atQuantile: 0.5) == nil && histogram.mean == nil)
        histogram.record(-5)
        histogram.record(.max)
        #expect(histogram.min == 0)
        #expect(histogram.max == LatencyHistogram.maxTrackable)
        #expect(histogram.value(atQuantile: 0.5) == 0)
    }

    @Test("merging adds the counts")
    func merge() {
        var left = LatencyHistogram()
        var right = LatencyHistogram()
        for value in Int64(0)..<100 { left.record(value) }
        for value in Int64(1000)..<1100 { right.record(value) }
        var both = LatencyHistogram()
        for value in Int64(0)..<100 { both.record(value) }
        for value in Int64(1000)..<1100 { both.record(value) }
        left.merge(right)
        #expect(left == both)
        left.merge(LatencyHistogram())
        #expect(left == both)
    }
}
