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
        /// A `loc` frame; `receivedAt` is nil for frames that were not live.
        case location(EncodedLocation, receivedAt: ContinuousClock.Instant?)
        /// A `leave` frame for the device.
        case leave(String)
        /// A `presence` frame with `online:false` for the device of this last position.
        case offline(EncodedLocation)
        /// A `presence` frame with `online:true`, then a `loc` frame: a device back online.
        case returning(EncodedLocation, receivedAt: ContinuousClock.Instant?)
    }

    private var lastSeq: [String: UInt64]
    private var shown: Set<String>
    /// Shown devices this subscriber was told are offline: their next `loc` brings `online:true` first.
    private var offline: Set<String>
    private var thinning: Thinning?

    /// A gate after `opening`, whose devices in `offline` were shown offline, thinning as
    /// `request` asks.
    init(
        _ request: SubscribeRequest, opening: Opening, offline: Set<String> = [], now: ContinuousClock.Instant = .now
    ) {
        lastSeq = opening.lastSent
        shown = Set(opening.lastSent.keys)
        self.offline = offline
        thinning = Thinning(request, opening: opening.frames, now: now)
    }

    /// How often the task should call `due` even when nothing arrives (nil: never).
    var tick: Duration? { thinning?.tick }

    /// The frame to send for `publication` now, if any.
    mutating func admit(_ publication: Publication, now: ContinuousClock.Instant) -> Frame? {
        let location = publication.update.location
        if publication.kind == .offline { return admitOffline(publication.update) }
        guard location.seq > lastSeq[location.device, default: 0] else { return nil }
        switch publication.kind {
        case .leave:
            lastSeq[location.device] = location.seq
            thinning?.forget(location.device)
            return shown.remove(location.device) == nil ? nil : .leave(location.device)
        case .location, .offline:
            guard thinning != nil else { return send(publication) }
            guard let passed = thinning?.admit(publication, now: now) else { return nil }
            return send(passed)
        }
    }

    /// `online:false` for a shown device whose newest update sent is `last` (not one
    /// newer: it is back already), once.
    private mutating func admitOffline(_ last: EncodedLocation) -> Frame? {
        let location = last.location
        guard shown.contains(location.device), location.seq >= lastSeq[location.device, default: 0],
            offline.insert(location.device).inserted
        else { return nil }
        return .offline(last)
    }

    /// Held frames whose interval has passed.
    mutating func due(now: ContinuousClock.Instant) -> [Frame] {
        let ready = thinning?.due(now: now) ?? []
        return ready.filter { $0.update.location.seq > lastSeq[$0.update.location.device, default: 0] }.map {
            send($0)
        }
    }

    private mutating func send(_ publication: Publication) -> Frame {
        let location = publication.update.location
        lastSeq[location.device] = location.seq
        shown.insert(location.device)
        guard offline.remove(location.device) == nil else {
            return .returning(publication.update, receivedAt: publication.receivedAt)
        }
        return .location(publication.update, receivedAt: publication.receivedAt)
    }
}
