/// The `published` reply to a `publish` with `ack`, with the v1.1 field `seqs`: the seq the
/// server assigned to each location, in the order they were sent.
///
/// `ServerMessage.decode` reads the same frame as `.published(count:)` and ignores `seqs`,
/// as a v1 client does.
public struct PublishAck: Sendable, Equatable {
    /// The assigned seqs, one per published location, in order.
    public var seqs: [UInt64]

    /// An ack for locations that were given `seqs`.
    public init(seqs: [UInt64]) { self.seqs = seqs }

    /// `{"op":"published","count":n,"seqs":[…]}`.
    public func encoded() -> [UInt8] {
        var writer = JSONObjectWriter(op: "published", capacity: 40 + 20 * seqs.count)
        writer.integer("count", Int64(seqs.count))
        writer.key("seqs")
        writer.bytes.append(.openBracket)
        for (position, seq) in seqs.enumerated() {
            if position > 0 { writer.bytes.append(.comma) }
            writer.bytes.appendJSONInteger(seq)
        }
        writer.bytes.append(.closeBracket)
        return writer.finish()
    }

    /// Reads a `published` frame; nil when the frame is not one or carries no valid `seqs`
    /// (a server before v1.1 sends only `count`).
    public static func decode(_ bytes: some Collection<UInt8>) -> PublishAck? {
        guard case .object(let members)? = try? JSONValue(parsing: bytes), members["op"] == .string("published"),
            case .array(let values)? = members["seqs"]
        else { return nil }
        let seqs = values.compactMap { $0.integerValue.flatMap { UInt64(exactly: $0) } }
        guard seqs.count == values.count, members["count"]?.integerValue == Int64(seqs.count) else { return nil }
        return PublishAck(seqs: seqs)
    }
}
