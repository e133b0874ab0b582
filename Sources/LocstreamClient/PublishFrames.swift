/// Encodes locations as `publish` frames (with `ack`) that the server accepts: at most
/// `ProtocolLimits.maxLocationsPerPublish` locations and `maxBytes` bytes each. A larger
/// frame would be closed with 1009, whatever its count. `stream-client simulate` uses it too.
package enum PublishFrames {
    /// `locations`, in order, as frames with the number of locations in each. A single
    /// location larger than `maxBytes` still gets a frame of its own.
    package static func encode(_ locations: [Location], maxBytes: Int) -> [(bytes: [UInt8], count: Int)] {
        var frames: [(bytes: [UInt8], count: Int)] = []
        var rest = locations[...]
        while !rest.isEmpty {
            var count = min(rest.count, ProtocolLimits.maxLocationsPerPublish)
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
