import Foundation
import LocstreamProtocol

/// One device as the store holds it when the node starts.
public struct StoredDevice: Sendable {
    /// Its last position, as it was encoded (its seq is the last one committed).
    public let last: EncodedLocation
    /// The seq its next update must be above: the last committed one, or higher after a
    /// crash (see `SeqState`). Never below `last.location.seq`.
    public let seq: UInt64
    /// When it was last heard (wall clock), for retention.
    public let lastHeard: Date
}

/// Everything the node keeps in memory, read from the store at start.
public struct StoreSnapshot: Sendable {
    /// Every stored device, in no particular order.
    public let devices: [StoredDevice]
    /// The seq a device not in `devices` starts above (a new one, or one removed for
    /// silence that comes back).
    public let seqFloor: UInt64
    /// True when the previous process did not close the store (a crash): seqs were
    /// raised past anything it could have handed out.
    public let recoveredFromCrash: Bool
}
