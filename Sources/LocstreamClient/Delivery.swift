/// An update with what a tool shows beside it: the frame it came from and the previous seq
/// of its device. `LocationUpdates.Iterator.nextDelivery()` hands it out (`stream-client
/// subscribe` prints both); apps see only the update.
package struct Delivery: Sendable {
    /// What happened.
    package var update: LocationUpdate
    /// The `loc` or `leave` frame, as the server sent it, when the configuration `keepsFrames`;
    /// nil for what the client reports itself.
    package var frame: [UInt8]?
    /// The seq delivered before of this location's device, in this sequence.
    package var previousSeq: UInt64?

    /// `update`, from `frame`, after `previousSeq`.
    init(_ update: LocationUpdate, frame: [UInt8]? = nil, previousSeq: UInt64? = nil) {
        self.update = update
        self.frame = frame
        self.previousSeq = previousSeq
    }
}
