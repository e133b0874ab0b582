/// The load shapes `stream-client bench` knows.
public enum BenchScenario: String, CaseIterable, Sendable {
    case fanout
    case churn
    case capacity
    case slow
    case storm

    /// One line for `--help`.
    public var summary: String {
        switch self {
        case .fanout: "S subscribers, each watching K of D devices, while publishers send R updates/s in batches."
        case .churn: "fanout, with every subscriber switching its sub every --switch-ms: stale frames, ack latency."
        case .capacity: "Idle subscribed connections in steps of --step up to --connections; server RSS per connection."
        case .slow: "fanout, plus --slow subscribers that never read: the others' latency, the slow ones' fate."
        case .storm: "--connections connects at once, then all close and reconnect at once: connects/s, failures."
        }
    }

    /// Whether the scenario publishes and measures delivery.
    var publishes: Bool { self == .fanout || self == .churn || self == .slow }
}
