/// The `If-None-Match` precondition (RFC 9110 §13.1.2): whether a request's field value
/// names a representation's current entity tag, so the answer is `304 Not Modified`.
public enum IfNoneMatch {
    /// Whether `field` (the whole field value; several header lines joined with commas)
    /// matches `etag` (the current entity tag, quoted, possibly `W/`-prefixed). `*` matches
    /// any tag; otherwise a listed tag matches by weak comparison (§8.8.3.2: the opaque tags
    /// are equal, whatever `W/` either side carries). A malformed list matches nothing, so
    /// the full response is sent: that is always safe.
    public static func matches(_ field: String, etag: String) -> Bool {
        let field = Array(field.utf8)
        if field.filter({ !isWhitespace($0) }) == Array("*".utf8) { return true }
        guard let current = opaqueTag(Array(etag.utf8)) else { return false }
        var index = 0
        while index < field.count {
            if isWhitespace(field[index]) || field[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard let (tag, end) = entityTag(in: field, from: index) else { return false }
            if tag == current { return true }
            index = end
        }
        return false
    }

    /// The opaque tag (with its quotes) of one entity tag, or nil when it is not one.
    private static func opaqueTag(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        guard let (tag, end) = entityTag(in: bytes, from: 0), end == bytes.count else { return nil }
        return tag
    }

    /// The entity tag starting at `start` (`W/"…"` or `"…"`): its opaque tag and the index
    /// after it; nil when none starts there.
    private static func entityTag(in bytes: [UInt8], from start: Int) -> (ArraySlice<UInt8>, Int)? {
        var open = start
        if bytes[open...].starts(with: "W/".utf8) { open += 2 }
        guard open < bytes.count, bytes[open] == quote,
            let close = bytes[(open + 1)...].firstIndex(of: quote)
        else { return nil }
        return (bytes[open...close], close + 1)
    }

    private static let quote = UInt8(ascii: "\"")

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }
}
