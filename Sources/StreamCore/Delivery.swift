import LocstreamProtocol
import Observability

/// Writes one subscription's location frames to its sink and counts what happened:
/// sent, conflated for a slow peer, or the peer closed as a slow consumer.
struct Delivery: Sendable {
    let sink: any FrameSink
    /// `{"op":"loc","sub":"…",`, encoded once per subscription.
    let prefix: [UInt8]
    let generation: UInt64
    let metrics: StreamMetrics
    let logger: Logger
    let connectionID: String

    /// Sends `update`, received by the hub at `receivedAt` (nil for snapshot and
    /// replay frames); false when the subscription should stop sending.
    func send(_ update: EncodedLocation, receivedAt: ContinuousClock.Instant? = nil) -> Bool {
        let outcome = sink.send(head: prefix, body: update.body, key: update.location.device, generation: generation)
        if let receivedAt, outcome == .queued || outcome == .conflated {
            let elapsed = ContinuousClock.now - receivedAt
            metrics.publishToSend.observe(
                Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        switch outcome {
        case .queued:
            metrics.framesSent.increment()
            return true
        case .conflated:
            metrics.framesSent.increment()
            metrics.framesDropped["conflated"]?.increment()
            return true
        case .stopped:
            return false
        case .slowConsumerClosed(let dropped):
            metrics.framesDropped["slow_consumer_closed"]?.increment(by: dropped + 1)
            metrics.slowConsumersClosed.increment()
            logger.warning("slow consumer closed", ["conn": connectionID, "code": 4008, "dropped_frames": dropped + 1])
            return false
        }
    }
}
