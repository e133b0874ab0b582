import WebSocketTransport

/// Switches every subscriber's subscription every `interval`, staggered evenly, until `end`.
///
/// Subscriber `i`'s switch `m` (m ≥ 1) falls at `origin + m·T + i·T/S`: a new sub id and the
/// next device subset. The send time is recorded in `pendingSwitches`, and the subscriber's
/// reader measures the wait for its `subscribed`.
struct ChurnSwitcher: Sendable {
    let connections: [(index: Int, connection: WebSocketConnection)]
    let plan: WatchPlan
    let interval: Duration
    let shared: BenchShared

    /// Runs from `origin` until `end` (both on the continuous clock), counting the switches
    /// sent in the tally.
    func run(origin: ContinuousClock.Instant, end: ContinuousClock.Instant) async {
        guard !connections.isEmpty else { return }
        let count = connections.count
        let stagger = interval / count
        var round = 1
        var position = 0
        while !Task.isCancelled {
            let due = origin + interval * round + stagger * position
            if due >= end { break }
            if due > .now + .milliseconds(1) {
                try? await Task.sleep(until: due, clock: .continuous)
                continue
            }
            let (index, connection) = connections[position]
            let sub = plan.sub(of: index, shift: round)
            let now = WallClock.micros()
            shared.pendingSwitches.withLock { $0[sub] = now }
            if connection.send(OutboundFrame(body: plan.subscribeFrame(of: index, shift: round))) {
                shared.tally.withLock { $0.switchesSent += 1 }
            }
            position += 1
            if position == count {
                position = 0
                round += 1
            }
        }
    }
}
