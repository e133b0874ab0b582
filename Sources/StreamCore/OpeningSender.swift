import LocstreamProtocol

/// A subscription's opening (its snapshot or replay frames) on its way out, as fast as
/// the peer reads it. It never queues more than the sink has room for, so an opening
/// larger than the connection's queue limit (a snapshot of a busy area) is paced rather
/// than conflated: every frame that `subscribed.snapshot` counted arrives.
///
/// What fits at once is queued by the switch itself, right after the ack, as before
/// pacing existed; the subscription's task sends the rest before its first live frame.
struct OpeningSender: Sendable {
    private var frames: [EncodedLocation]
    private let offline: Set<String>
    private var next = 0

    /// The frames of `opening`; those of devices in `offline` say so.
    init(_ opening: Opening, offline: Set<String>) {
        frames = opening.frames
        self.offline = offline
    }

    /// Everything has been queued.
    var isDone: Bool { next == frames.count }

    /// Queues the frames that fit in the sink's room now (and the next one in any case
    /// when `atLeastOne`: after a wait, so a frame larger than the whole limit still
    /// goes, under the slow-consumer policy). False when the subscription should stop.
    mutating func sendWhatFits(to delivery: Delivery, atLeastOne: Bool = false) -> Bool {
        guard var room = delivery.sink.room(for: delivery.generation) else { return false }
        var forced = atLeastOne
        while next < frames.count {
            let frame = frames[next]
            let body = LocationFrame.withOnline(frame.body, !offline.contains(frame.location.device))
            let bytes = delivery.prefix.count + body.count
            guard bytes <= room || forced else { break }
            guard delivery.sendOpening(body: body, of: frame.location.device) else { return false }
            room = max(room - bytes, 0)
            forced = false
            next += 1
        }
        return true
    }

    /// Queues the rest, waiting for the peer to read between steps. False when the
    /// subscription should stop (switched, unsubscribed, closed or cancelled), or when the
    /// peer read nothing for `stallTimeout`: the connection is then closed with 4008.
    mutating func sendRest(to delivery: Delivery, stallTimeout: Duration) async -> Bool {
        while !isDone {
            guard await Self.waitForRoom(delivery, atMost: stallTimeout) else {
                delivery.closeStalledViewer(unsent: frames.count - next)
                return false
            }
            guard !Task.isCancelled, sendWhatFits(to: delivery, atLeastOne: true) else { return false }
        }
        return true
    }

    /// Waits for room (or for the subscription's end); false when `timeout` passed first.
    private static func waitForRoom(_ delivery: Delivery, atMost timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await delivery.sink.waitForRoom(for: delivery.generation)
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return Task.isCancelled
            }
            let first = await group.next() ?? true
            group.cancelAll()
            return first
        }
    }
}
