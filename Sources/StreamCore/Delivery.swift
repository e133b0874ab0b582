import LocstreamProtocol
import Observability

/// Writes one subscription's `loc`, `leave`, `presence` and `cells` frames to its sink and counts what
/// happened: sent, conflated for a slow peer, or the peer closed as a slow consumer.
struct Delivery: Sendable {
    let sink: any FrameSink
    /// The subscription's id.
    let sub: String
    /// `{"op":"loc","sub":"…",`, encoded once per subscription.
    let prefix: [UInt8]
    let generation: UInt64
    /// The node, for its metrics and logger: one reference, where copies of both would
    /// add a hundred bytes or more to every subscription.
    let node: Node
    let connectionID: String

    init(sink: any FrameSink, sub: String, generation: UInt64, node: Node, connectionID: String) {
        self.sink = sink
        self.sub = sub
        self.prefix = LocationFrame.prefix(sub: sub)
        self.generation = generation
        self.node = node
        self.connectionID = connectionID
    }

    /// What a batch of `loc` frames came to, counted on the stack and recorded once
    /// (`record(_:)`): a frame then costs no atomic operation and no clock read.
    struct Tally {
        fileprivate var sent = 0
        fileprivate var latency = DurationTally()
    }

    /// Sends `frame`, taken at `now` from the subscription's stream, counting a queued
    /// `loc` in `tally`; false when the subscription should stop sending.
    func send(_ frame: FrameGate.Frame, at now: ContinuousClock.Instant, into tally: inout Tally) -> Bool {
        switch frame {
        case .location(let publication): send(publication, at: now, into: &tally)
        case .leave(let device):
            record(
                sink.send(
                    head: ServerMessage.leave(sub: sub, device: device).encoded(), body: [], key: device,
                    generation: generation))
        case .offline(let last):
            sendPresence(of: last.update.location, online: false)
        case .returning(let publication):
            sendPresence(of: publication.update.location, online: true) && send(publication, at: now, into: &tally)
        }
    }

    /// Sends a `presence` frame for the device of `location` (with its `ts` as `last_seen`
    /// when offline). Its conflation key is not a device id (it has a space), so a
    /// `loc` never takes its place in the outbox.
    private func sendPresence(of location: Location, online: Bool) -> Bool {
        let frame = LocationFrame.presence(
            sub: sub, device: location.device, online: online, lastSeen: online ? nil : location.ts)
        return record(sink.send(head: frame, body: [], key: "presence " + location.device, generation: generation))
    }

    /// Sends an opening (snapshot or replay) frame of `device` whose body (`body`, made by
    /// `LocationFrame.withOnline`) says last whether it is online; the frame starts as
    /// every `loc` does.
    func sendOpening(body: [UInt8], of device: String) -> Bool {
        record(sink.send(head: prefix, body: body, key: device, generation: generation))
    }

    /// Sends a `cells` frame and returns what became of it: `.conflated` means queued
    /// frames were dropped for a slow peer, so the client may have missed cells.
    func sendCells(_ frame: [UInt8]) -> SinkOutcome {
        let outcome = sink.send(head: frame, body: [], key: "cells frame", generation: generation)
        _ = record(outcome)
        return outcome
    }

    /// Sends the update of `publication`, taken from the stream at `now`, which ends its
    /// publish-to-send time; false when the subscription should stop sending.
    private func send(_ publication: Publication, at now: ContinuousClock.Instant, into tally: inout Tally) -> Bool {
        let outcome = sink.send(head: prefix, body: publication.body, key: publication.device, generation: generation)
        if outcome.isQueued { node.metrics.publishToSend.observe(now - publication.receivedAt, into: &tally.latency) }
        guard outcome == .queued else { return record(outcome) }
        tally.sent += 1
        return true
    }

    /// Records what `tally` counted.
    func record(_ tally: Tally) {
        if tally.sent > 0 { node.metrics.framesSent.increment(by: tally.sent) }
        node.metrics.publishToSend.record(tally.latency)
    }

    /// Closes the connection with 4008: the peer read nothing of its opening for too long,
    /// and `unsent` frames of it will never go out. Counted and logged as a slow consumer.
    func closeStalledViewer(unsent: Int) {
        sink.close(code: 4008, reason: "slow consumer")
        // `record` counts the frame it was given as dropped too: that is the first unsent one.
        _ = record(.slowConsumerClosed(dropped: unsent - 1))
    }

    /// Counts `outcome`; false when the subscription should stop sending.
    private func record(_ outcome: SinkOutcome) -> Bool {
        switch outcome {
        case .queued:
            node.metrics.framesSent.increment()
            return true
        case .conflated(let dropped):
            node.metrics.framesSent.increment()
            node.metrics.framesDropped["conflated"]?.increment(by: dropped)
            return true
        case .stopped:
            return false
        case .slowConsumerClosed(let dropped):
            node.metrics.framesDropped["slow_consumer_closed"]?.increment(by: dropped + 1)
            node.metrics.slowConsumersClosed.increment()
            node.logger.warning(
                "slow consumer closed", ["conn": connectionID, "code": 4008, "dropped_frames": dropped + 1])
            return false
        }
    }
}
