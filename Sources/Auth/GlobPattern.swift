/// A device-id pattern in which `*` matches any run of characters (including none) and
/// every other character matches itself. There are no other metacharacters and no escapes.
///
/// Matching is linear in the lengths of the pattern and the candidate, whatever the
/// pattern: `*`-only globs need no backtracking. The pattern is cut at its stars into a
/// prefix, a suffix and the literal pieces between; the prefix and suffix must match the
/// ends, and each piece is then found leftmost-first (Knuth–Morris–Pratt) after the one
/// before it. Taking the leftmost occurrence is always safe, because it leaves the most
/// room for the pieces that follow. Comparison is by UTF-8 bytes, so no Unicode
/// normalisation is applied.
public struct GlobPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let pattern: String
    /// The bytes before the first `*`; the whole pattern when it has no `*`.
    private let prefix: [UInt8]
    /// The non-empty literal pieces between stars, in order.
    private let pieces: [LiteralSearch]
    /// The bytes after the last `*`.
    private let suffix: [UInt8]
    /// Whether the pattern has at least one `*`.
    private let hasStar: Bool

    /// Compiles `pattern`.
    public init(_ pattern: String) {
        self.pattern = pattern
        let parts = Array(pattern.utf8).split(separator: UInt8(ascii: "*"), omittingEmptySubsequences: false)
        hasStar = parts.count > 1
        prefix = Array(parts[0])
        suffix = hasStar ? Array(parts[parts.count - 1]) : []
        pieces = parts.dropFirst().dropLast().filter { !$0.isEmpty }.map { LiteralSearch(Array($0)) }
    }

    public var description: String { pattern }

    /// Whether `candidate` matches the whole pattern.
    public func matches(_ candidate: String) -> Bool {
        var candidate = candidate
        return candidate.withUTF8 { matches(bytes: $0) }
    }

    /// Whether the UTF-8 bytes `text` match the whole pattern.
    func matches(bytes text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard hasStar else { return text.elementsEqual(prefix) }
        guard text.count >= prefix.count + suffix.count, text.starts(with: prefix),
            text[(text.count - suffix.count)...].elementsEqual(suffix)
        else { return false }
        var position = prefix.count
        let end = text.count - suffix.count
        for piece in pieces {
            guard let found = piece.firstMatchEnd(in: text, from: position, to: end) else { return false }
            position = found
        }
        return true
    }
}
