import Synchronization

/// A number that only goes up (Prometheus counter), lock-free.
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    init() {}

    /// Adds `amount` (default 1).
    public func increment(by amount: Int = 1) {
        value.add(amount, ordering: .relaxed)
    }

    /// The current count.
    public var count: Int { value.load(ordering: .relaxed) }
}

/// A number that goes up and down (Prometheus gauge), lock-free.
public final class Gauge: Sendable {
    private let value = Atomic<Int>(0)

    init() {}

    /// Adds `amount`, which may be negative.
    public func add(_ amount: Int) {
        value.add(amount, ordering: .relaxed)
    }

    /// Sets the value.
    public func set(_ newValue: Int) {
        value.store(newValue, ordering: .relaxed)
    }

    /// The current value.
    public var current: Int { value.load(ordering: .relaxed) }
}

/// A counter per value of one label, the values fixed when it is made (e.g. one per
/// error code), so counting never takes a lock.
public final class LabeledCounter: Sendable {
    /// The label's name, e.g. `code`.
    public let label: String
    private let counters: [String: Counter]
    private let order: [String]

    init(label: String, values: [String]) {
        self.label = label
        order = values
        counters = Dictionary(uniqueKeysWithValues: values.map { ($0, Counter()) })
    }

    /// The counter for `value`; nil if `value` is not one of the label's values.
    public subscript(_ value: String) -> Counter? { counters[value] }

    /// Each label value with its count, in the order given.
    public var samples: [(value: String, count: Int)] {
        order.compactMap { value in counters[value].map { (value, $0.count) } }
    }
}
