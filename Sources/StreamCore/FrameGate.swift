import LocstreamProtocol

/// What one subscription sends, decided per publication: no duplicate of what the
/// opening already sent, seq order per device, thinning, and for area subscriptions a
/// `leave` only for a device the client was shown (once; a device that comes back is
/// shown again and may leave again), and presence: `online:false` once for a shown device
/// that goes offline, `online:true` before its next location.
///
/// It belongs to the subscription task alone.
struct FrameGate {
    /// A frame to write.
    enum Frame {
        /// A `loc` frame of the publication's update.
        case location(Publication)
        /// A `leave` frame for the device.
        case leave(String)
        /// A `presence` frame with `online:false` for the device of this update, its last position.
        case offline(Publication)
        /// A `presence` frame with `online:true`, then a `loc` frame: a device back online.
        case returning(Publication)
    }

    /// What this subscriber was sent of one device.
    private struct Mark {
        /// The seq of the newest update sent (or left at).
        var seq: UInt64 = 0
        /// A location of the device was sent, and no `leave` since.
        var shown = false
        /// The subscriber was told the device is offline: its next `loc` brings
        /// `online:true` first.
        var offline = false

        /// `send(_:)` for a publication newer than what was sent; nil for an older one.
        mutating func sendIfNewer(_ publication: Publication) -> Frame? {
            publication.seq > seq ? send(publication) : nil
        }

        /// Records that `publication` is sent; the frame that says so.
        mutating func send(_ publication: Publication) -> Frame {
            seq = publication.seq
            shown = true
            guard offline else { return .location(publication) }
            offline = false
            return .returning(publication)
        }
    }

    /// One mark per device this subscriber has heard of: one hash per frame, not one per question.
    private var marks: [String: Mark]
    private var thinning: Thinning?

    /// A gate after `opening`, whose devices in `offline` were shown offline, thinning as
    /// `request` asks.
    init(
        _ request: SubscribeRequest, opening: Opening, offline: Set<String> = [], now: ContinuousClock.Instant = .now
    ) {
        marks = opening.lastSent.mapValues { Mark(seq: $0, shown: true) }
        for device in offline { marks[device, default: Mark()].offline = true }
        thinning = Thinning(request, opening: opening.frames, now: now)
    }

    /// How often the task should call `due` even when nothing arrives (nil: never).
    var tick: Duration? { thinning?.tick }

    /// The frame to send for `publication` now, if any.
    mutating func admit(_ publication: Publication, now: ContinuousClock.Instant) -> Frame? {
        if publication.kind == .offline { return admitOffline(publication) }
        return Self.admit(
            publication, after: &marks[publication.device, default: Mark()], thinning: &thinning, now: now)
    }

    private static func admit(
        _ publication: Publication, after mark: inout Mark, thinning: inout Thinning?, now: ContinuousClock.Instant
    ) -> Frame? {
        guard publication.seq > mark.seq else { return nil }
        switch publication.kind {
        case .leave:
            mark.seq = publication.seq
            thinning?.forget(publication.device)
            defer { mark.shown = false }
            return mark.shown ? .leave(publication.device) : nil
        case .location, .offline:
            guard thinning != nil else { return mark.send(publication) }
            guard let passed = thinning?.admit(publication, now: now) else { return nil }
            return mark.send(passed)
        }
    }

    /// `online:false` for a shown device whose newest update sent is `last`'s (not one
    /// newer: it is back already), once.
    private mutating func admitOffline(_ last: Publication) -> Frame? {
        guard let index = marks.index(forKey: last.device) else { return nil }
        let mark = marks.values[index]
        guard mark.shown, last.seq >= mark.seq, !mark.offline else { return nil }
        marks.values[index].offline = true
        return .offline(last)
    }

    /// Held frames whose interval has passed.
    mutating func due(now: ContinuousClock.Instant) -> [Frame] {
        guard let ready = thinning?.due(now: now), !ready.isEmpty else { return [] }
        // Thinning holds only what `admit` passed, so each device has its mark already.
        return ready.compactMap { marks[$0.device, default: Mark()].sendIfNewer($0) }
    }
}
