/// A location's encoding split around its `seq`, for a store that assigns the seq
/// itself (the Redis broker's publish script): `head + digits(seq) + tail` is exactly
/// the body `EncodedLocation` encodes for the location with that seq.
public struct EncodedLocationTemplate: Sendable, Equatable {
    /// The members before the seq's digits, ending with `"seq":`.
    public let head: [UInt8]
    /// The members after the seq's digits, ending with the closing `}`.
    public let tail: [UInt8]

    /// The template of `location` (its `seq` is ignored).
    public init(_ location: Location) {
        var before = JSONObjectWriter(openBrace: false)
        location.appendMembersBeforeSeq(to: &before)
        before.key("seq")
        head = before.bytes
        var after = JSONObjectWriter(openBrace: false, afterMember: true)
        location.appendMembersAfterSeq(to: &after)
        tail = after.finish()
    }
}

extension EncodedLocation {
    /// Decodes a body that `init(_:)` encoded (or a template joined with its seq), read
    /// back from a store: the location is validated, and the bytes are kept as they are.
    public init(body: [UInt8]) throws(ProtocolError) {
        let json = try JSONValue(parsing: [.openBrace] + body)
        self.init(location: try Location(json: json, name: "stored location", op: nil, readsSeq: true), body: body)
    }
}
