/// A claim's glob patterns (`devices` or `publish`), compiled so that testing an id costs
/// about the same for a token of one pattern as for one of a thousand.
///
/// The hub tests an area subscriber's rights once per publication that lands in its
/// cells, so a token's patterns sit on the fan-out path. Patterns are split by shape:
/// - an exact id (no `*`) goes into a hash set;
/// - a prefix (`veh-*`) goes into a sorted list with every prefix that a shorter one
///   already covers removed; in such a list the only candidate for an id is the greatest
///   prefix not above it, found by bisection;
/// - any other shape (`*-7`, `a*b`) is matched one by one, and `maxGeneral` bounds them.
public struct PatternSet: Sendable, Hashable {
    /// The most patterns a claim may hold.
    public static let maxPatterns = 1000
    /// The most patterns that are neither an exact id nor `prefix*`.
    public static let maxGeneral = 32

    /// The patterns as written, in order.
    public let patterns: [GlobPattern]
    /// Whether one pattern is `*`.
    public let matchesEverything: Bool
    private let exact: Set<String>
    private let prefixes: [[UInt8]]
    private let general: [GlobPattern]

    /// Compiles `patterns`; any number is accepted here (`Claims` enforces the limits).
    public init(_ patterns: [String]) {
        self.patterns = patterns.map(GlobPattern.init)
        var exact = Set<String>()
        var prefixes: [[UInt8]] = []
        var general: [GlobPattern] = []
        for pattern in patterns {
            let bytes = Array(pattern.utf8)
            let stars = bytes.lazy.filter { $0 == UInt8(ascii: "*") }.count
            if stars == 0 {
                exact.insert(pattern)
            } else if stars == 1 && bytes.last == UInt8(ascii: "*") {
                prefixes.append(bytes.dropLast())
            } else {
                general.append(GlobPattern(pattern))
            }
        }
        self.exact = exact
        self.prefixes = Self.withoutCoveredPrefixes(prefixes)
        self.general = general
        matchesEverything = self.prefixes.first?.isEmpty == true
    }

    /// How many patterns are neither an exact id nor `prefix*`.
    public var generalCount: Int { general.count }

    /// Whether `id` matches one of the patterns.
    public func matches(_ id: String) -> Bool {
        if matchesEverything || exact.contains(id) { return true }
        var id = id
        return id.withUTF8 { bytes in
            matchesPrefix(bytes) || general.contains { $0.matches(bytes: bytes) }
        }
    }

    /// Whether some prefix starts `bytes`: the greatest prefix not above them, if any.
    private func matchesPrefix(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var low = 0
        var high = prefixes.count
        while low < high {
            let middle = (low + high) / 2
            if prefixes[middle].lexicographicallyPrecedes(bytes) || prefixes[middle].elementsEqual(bytes) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low > 0 && bytes.starts(with: prefixes[low - 1])
    }

    /// `prefixes` sorted, with each one that begins with another dropped.
    private static func withoutCoveredPrefixes(_ prefixes: [[UInt8]]) -> [[UInt8]] {
        var kept: [[UInt8]] = []
        for prefix in prefixes.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            if let last = kept.last, prefix.starts(with: last) { continue }
            kept.append(prefix)
        }
        return kept
    }

    public static func == (left: PatternSet, right: PatternSet) -> Bool { left.patterns == right.patterns }

    public func hash(into hasher: inout Hasher) { hasher.combine(patterns) }
}
