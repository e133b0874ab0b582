import Locking

/// What the tasks of one run share: the tally, the live frame count, the publish times,
/// and the switches awaiting their `subscribed`.
struct BenchShared: Sendable {
    let tally = Locked(BenchTally())
    let frames = FrameCounter()
    let sendTimes = SendTimes()
    /// Churn: sub id → the microsecond its `subscribe` was sent.
    let pendingSwitches = Locked<[String: Int64]>([:])

    /// A fresh set.
    init() {}

    /// A copy of the tally as it stands.
    func snapshot() -> BenchTally { tally.withLock { $0 } }
}
