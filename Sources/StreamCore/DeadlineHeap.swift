/// A binary min-heap of timer deadlines: the earliest is always at the top.
///
/// An entry is only a deadline and a timer's id; what the timer does is kept by its
/// owner (`TimerQueue`), so a cancelled timer may stay here as a stale id until it
/// reaches the top or the owner compacts the heap.
struct DeadlineHeap {
    /// One timer's place in the heap.
    struct Entry {
        let deadline: ContinuousClock.Instant
        let id: UInt64
    }

    private(set) var entries: [Entry] = []

    var count: Int { entries.count }

    /// The entry with the earliest deadline.
    var top: Entry? { entries.first }

    mutating func insert(_ entry: Entry) {
        entries.append(entry)
        siftUp(from: entries.count - 1)
    }

    /// Removes and returns the entry with the earliest deadline.
    @discardableResult
    mutating func removeTop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let top = entries.removeLast()
        siftDown(from: 0)
        return top
    }

    /// Keeps only the entries `isLive` accepts, in heap order again.
    mutating func keep(where isLive: (Entry) -> Bool) {
        entries.removeAll { !isLive($0) }
        for index in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(from: index) }
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            let right = left + 1
            let earlier = right < entries.count && entries[right].deadline < entries[left].deadline ? right : left
            guard entries[earlier].deadline < entries[parent].deadline else { return }
            entries.swapAt(parent, earlier)
            parent = earlier
        }
    }
}
