/// A literal byte string with its Knuth–Morris–Pratt failure table, for substring search
/// in time linear in the text searched.
struct LiteralSearch: Sendable, Hashable {
    /// The bytes to find; never empty.
    let needle: [UInt8]
    /// `failure[i]`: the length of the longest proper border of `needle[0...i]`.
    private let failure: [Int]

    /// Prepares a search for `needle`, which must not be empty.
    init(_ needle: [UInt8]) {
        self.needle = needle
        var failure = [Int](repeating: 0, count: needle.count)
        var border = 0
        for index in needle.indices.dropFirst() {
            while border > 0 && needle[index] != needle[border] { border = failure[border - 1] }
            if needle[index] == needle[border] { border += 1 }
            failure[index] = border
        }
        self.failure = failure
    }

    /// The index just past the first occurrence of the needle within `text[start..<end]`,
    /// or nil. Reads each byte of that range at most once (amortised).
    func firstMatchEnd(in text: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        var matched = 0
        var index = start
        while index < end {
            while matched > 0 && text[index] != needle[matched] { matched = failure[matched - 1] }
            if text[index] == needle[matched] { matched += 1 }
            index += 1
            if matched == needle.count { return index }
        }
        return nil
    }
}
