/// The per-subscription half of a `loc` frame.
public enum LocationFrame: Sendable {
    /// `{"op":"loc","sub":"<sub>",`, computed once per subscription and put before each
    /// `EncodedLocation.body`.
    public static func prefix(sub: String) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24 + sub.utf8.count)
        bytes.appendASCII("{\"op\":\"loc\",\"sub\":")
        bytes.appendJSONString(sub)
        bytes.append(.comma)
        return bytes
    }
}
