/// A location encoded ONCE per publication and shared by every subscriber.
///
/// The wire frame is `LocationFrame.prefix(sub:) + body`: the prefix is
/// `{"op":"loc","sub":"A",` and the body `"device":"veh-17","lat":52.52,…,"seq":42}`.
public struct EncodedLocation: Sendable {
    /// The location that was encoded.
    public let location: Location
    /// Every member of the location, `seq` included, followed by the closing `}`.
    public let body: [UInt8]

    /// Encodes `location`, whose `seq` must already be assigned.
    public init(_ location: Location) {
        self.location = location
        var writer = JSONObjectWriter(openBrace: false)
        location.appendMembers(to: &writer, includingSeq: true)
        body = writer.finish()
    }

    /// A location and its body, already known to match (the durable store rebuilds its
    /// last positions so, without parsing the body again).
    package init(location: Location, body: [UInt8]) {
        self.location = location
        self.body = body
    }

    /// The complete `loc` frame for the subscription whose prefix is given.
    public func frame(prefix: [UInt8]) -> [UInt8] {
        prefix + body
    }
}
