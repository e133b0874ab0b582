/// The per-subscription half of a `loc` frame, and the `presence` frame of a subscription.
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

    /// A location's `body` (it ends with `}`) with `"online":<online>` as its last member: a
    /// snapshot frame's (v1.1), which says whether its device is online.
    public static func withOnline(_ body: [UInt8], _ online: Bool) -> [UInt8] {
        var bytes = Array(body.dropLast())
        if online { bytes.appendASCII(",\"online\":true}") } else { bytes.appendASCII(",\"online\":false}") }
        return bytes
    }

    /// `{"op":"presence","sub":…,"device":…,"online":…}`, with `last_seen` (the `ts` of the
    /// device's last location) when it went offline (v1.1).
    public static func presence(sub: String, device: String, online: Bool, lastSeen: Int64?) -> [UInt8] {
        var writer = JSONObjectWriter(op: "presence")
        writer.string("sub", sub)
        writer.string("device", device)
        writer.bool("online", online)
        if let lastSeen { writer.integer("last_seen", lastSeen) }
        return writer.finish()
    }
}
