/// "Did you mean …": the known name closest to a mistyped one.
public enum Suggestion {
    /// The candidate nearest to `typed` in edit distance (case-insensitive), if it is near
    /// enough to be a typo: at most a third of the name's length, and at least 1, away.
    public static func closest(to typed: String, among candidates: [String]) -> String? {
        let word = Array(typed.lowercased())
        let limit = max(1, word.count / 3)
        let scored = candidates.map { (candidate: $0, distance: distance(word, Array($0.lowercased()))) }
        guard let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= limit else { return nil }
        return best.candidate
    }

    /// `; did you mean X?` for `typed`, or "" when nothing is close.
    public static func hint(for typed: String, among candidates: [String]) -> String {
        hint(closest(to: typed, among: candidates))
    }

    /// `; did you mean X?` for a `suggestion` X, or "" for none.
    public static func hint(_ suggestion: String?) -> String {
        suggestion.map { "; did you mean \($0)?" } ?? ""
    }

    /// The Levenshtein distance, with a transposition of neighbours counting as one edit.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
