import Synchronization

/// A live count of `loc` frames received, readable at any time without a lock, so the
/// drain phase can tell when delivery is complete or has stalled.
final class FrameCounter: Sendable {
    private let value = Atomic<Int>(0)

    /// A counter at 0.
    init() {}

    /// Adds `count` frames.
    func add(_ count: Int) { value.add(count, ordering: .relaxed) }

    /// The frames counted so far.
    var total: Int { value.load(ordering: .relaxed) }
}
