/// What the client of an aggregated area subscription was sent, so that each `cells`
/// frame carries only the cells whose count or mean changed, and an emptied cell once
/// with count 0.
///
/// When a frame may have been lost (the slow-consumer policy dropped queued frames), the
/// next one carries every cell ever sent and every non-empty one, so the client's view is
/// whole again.
struct CellsView {
    private var shown: [Int: AggregatedArea.Summary] = [:]
    private var everSent: Set<Int> = []
    private var lost = false

    /// The cells to send to bring the client to `current`, in cell order: a summary for
    /// each changed cell, nil for each cell that emptied.
    mutating func changes(to current: [Int: AggregatedArea.Summary]) -> [(cell: Int, summary: AggregatedArea.Summary?)]
    {
        let candidates = lost ? everSent.union(current.keys) : Set(shown.keys).union(current.keys)
        let changed = candidates.filter { lost || shown[$0] != current[$0] }.sorted()
        lost = false
        shown = current
        everSent.formUnion(current.keys)
        return changed.map { ($0, current[$0]) }
    }

    /// A frame sent since the last `changes` may not reach the client.
    mutating func markLost() {
        lost = true
    }
}
