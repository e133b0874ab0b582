/// Splits a publish into frames the server accepts: at most
/// `ProtocolLimits.maxLocationsPerPublish` locations, and at most a byte limit each.
enum PublishBatches {
    /// The bytes of a `publish` frame around its locations.
    private static let overhead = ClientMessage.publish([], ack: true).encoded().count

    /// `locations` in order, cut into batches whose `publish` frame (with `ack`) stays within
    /// `maxBytes`; a single location larger than that still goes alone.
    static func split(_ locations: [Location], maxBytes: Int) -> [[Location]] {
        var batches: [[Location]] = []
        var batch: [Location] = []
        var bytes = overhead
        for location in locations {
            // Its encoding inside a frame, plus the comma before it.
            let size = ClientMessage.publish([location], ack: true).encoded().count - overhead + 1
            if !batch.isEmpty, batch.count == ProtocolLimits.maxLocationsPerPublish || bytes + size > maxBytes {
                batches.append(batch)
                batch = []
                bytes = overhead
            }
            batch.append(location)
            bytes += size
        }
        if !batch.isEmpty { batches.append(batch) }
        return batches
    }
}
