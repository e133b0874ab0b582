/// Reconnect delays: doubling from `initial` up to `cap`, back to `initial` on success.
struct Backoff {
    let initial: Duration
    let cap: Duration
    private(set) var next: Duration

    /// Delays from `initial`, doubling, never above `cap`.
    init(initial: Duration = .milliseconds(100), cap: Duration = .seconds(2)) {
        self.initial = initial
        self.cap = cap
        next = initial
    }

    /// The delay to wait now; the following one doubles.
    mutating func take() -> Duration {
        defer { next = min(next * 2, cap) }
        return next
    }

    /// After a success, start again from `initial`.
    mutating func reset() { next = initial }
}

extension Duration {
    /// The duration in seconds, as `Thread.sleep` and `poll` want it.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
