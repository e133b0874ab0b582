/// What a set of subscribers received, counted: frames, bytes, and every breach of the
/// per-device ordering PROTOCOL.md promises.
struct DeliveryCounts: Sendable, Equatable {
    /// `loc` frames received (duplicates included).
    var frames = 0
    /// Payload bytes of those frames.
    var bytes = 0
    /// Frames whose `seq` jumped past the next one: updates skipped (conflation, thinning).
    var seqGaps = 0
    /// How many seqs those jumps skipped, in total.
    var seqSkipped = 0
    /// Frames whose `seq` was below the device's last one.
    var outOfOrder = 0
    /// Frames whose `seq` equalled the device's last one.
    var duplicates = 0
    /// `loc` frames tagged with a `sub` other than the last acknowledged, after that ack.
    var staleAfterAck = 0
    /// Frames the scanner could not read, and `error` frames.
    var errors = 0

    /// Frames that were neither duplicates nor out of order: each a distinct update.
    var distinct: Int { frames - duplicates - outOfOrder }

    /// Adds `other` to these counts.
    mutating func add(_ other: DeliveryCounts) {
        frames += other.frames
        bytes += other.bytes
        seqGaps += other.seqGaps
        seqSkipped += other.seqSkipped
        outOfOrder += other.outOfOrder
        duplicates += other.duplicates
        staleAfterAck += other.staleAfterAck
        errors += other.errors
    }
}
