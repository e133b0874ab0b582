/// Everything a run has measured so far, shared by its tasks behind one lock.
///
/// Subscribers do not take the lock per frame: each buffers its measurements in a
/// `SubscriberTally` and merges it here every few hundred frames, each second, and when it
/// stops. The timeline starts at `originSecond` (the whole Unix second publishing began).
struct BenchTally: Sendable {
    /// The most seconds a timeline keeps; later ones count only in the totals.
    static let maxSeconds = 3600

    /// Frames and ordering, summed over subscribers.
    var counts = DeliveryCounts()
    /// Latency of every `loc` frame, in microseconds.
    var latency = LatencyHistogram()
    /// From sending a switching `subscribe` to receiving its `subscribed`, in microseconds.
    var switchAck = LatencyHistogram()
    /// The Unix second of timeline index 0.
    var originSecond: Int64 = .max
    /// Per-second samples from `originSecond` on.
    var seconds: [TimelineSecond] = []
    /// Churn: switching `subscribe` frames sent.
    var switchesSent = 0
    /// Subscriptions acknowledged (`subscribed` received) so far.
    var subscribed = 0
    /// Connections that ended while they should have stayed open.
    var disconnects = 0
    /// Locations published, per device index.
    var publishedPerDevice: [Int] = []
    /// Locations the publisher could not send because its connection's queue was full.
    var publishSkipped = 0
    /// The first few error messages the server sent, for the summary.
    var errorSamples: [String] = []

    /// The timeline entry for Unix second `second`, created on first use; nil outside
    /// the timeline (before the origin, or past `maxSeconds`).
    mutating func withSecond<R>(_ second: Int64, _ body: (inout TimelineSecond) -> R) -> R? {
        guard second >= originSecond, second - originSecond < Self.maxSeconds else { return nil }
        let index = Int(second - originSecond)
        if seconds.count <= index { seconds += Array(repeating: TimelineSecond(), count: index + 1 - seconds.count) }
        return body(&seconds[index])
    }

    /// Keeps `message` if fewer than five are kept.
    mutating func noteError(_ message: String) {
        if errorSamples.count < 5 { errorSamples.append(message) }
    }
}
