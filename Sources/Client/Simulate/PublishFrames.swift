import LocstreamProtocol

/// Encodes locations as `publish` messages (`ack:true`) that each fit the server's message
/// limit: a message over it would be closed with 1009, whatever the count.
enum PublishFrames {
    /// `locations`, in order, as publish messages of at most `maxBytes` each, with the number
    /// of locations in each. A single location larger than that still gets a message of its own.
    static func encode(_ locations: [Location], maxBytes: Int) -> [(bytes: [UInt8], count: Int)] {
        var frames: [(bytes: [UInt8], count: Int)] = []
        var rest = locations[...]
        while !rest.isEmpty {
            var count = rest.count
            while true {
                let frame = ClientMessage.publish(Array(rest.prefix(count)), ack: true).encoded()
                if frame.count <= maxBytes || count == 1 {
                    frames.append((frame, count))
                    rest = rest.dropFirst(count)
                    break
                }
                // Shrink in proportion to the overshoot, with a little headroom.
                let fitting = Int(Double(count) * Double(maxBytes) / Double(frame.count) * 0.97)
                count = max(1, min(count - 1, fitting))
            }
        }
        return frames
    }
}
