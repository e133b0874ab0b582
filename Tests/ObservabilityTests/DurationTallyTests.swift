import Observability
import Testing

/// A batch of durations counted in a tally and recorded at once must expose exactly what
/// observing each one in seconds would.
@Suite("duration tally")
struct DurationTallyTests {
    static let bounds = [0.001, 0.005, 0.05, 1]

    @Test("a recorded tally renders the same buckets, count and sum as one observation each")
    func matchesObservingEach() {
        let durations: [Duration] = [
            .zero, .microseconds(999), .milliseconds(1), .nanoseconds(1_000_001), .milliseconds(5),
            .microseconds(42_250), .milliseconds(50), .seconds(1), .milliseconds(1001), .seconds(30),
        ]
        let one = MetricsRegistry()
        let each = one.histogram("lag_seconds", help: "lag", bounds: Self.bounds)
        for duration in durations { each.observe(Self.seconds(duration)) }
        let other = MetricsRegistry()
        let batched = other.histogram("lag_seconds", help: "lag", bounds: Self.bounds)
        var tally = DurationTally()
        for duration in durations { batched.observe(duration, into: &tally) }
        #expect(other.render().contains("lag_seconds_count 0"), "nothing shows before the tally is recorded")
        batched.record(tally)
        #expect(other.render() == one.render())
        #expect(other.render().contains("lag_seconds_bucket{le=\"0.001\"} 3"))
        #expect(other.render().contains("lag_seconds_count 10"))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    @Test("an empty tally records nothing")
    func emptyTally() {
        let registry = MetricsRegistry()
        let histogram = registry.histogram("lag_seconds", help: "lag", bounds: Self.bounds)
        let before = registry.render()
        histogram.record(DurationTally())
        #expect(registry.render() == before)
    }
}
