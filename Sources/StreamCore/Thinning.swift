import LocstreamProtocol

/// A subscription's optional thinning, per device: `min_interval_ms` (at most one frame
/// per interval, the newest winning) and `min_distance_m` (skip an update that moved
/// less than this since the last one sent).
///
/// An update arriving within the interval is held, replacing any older held one; when
/// the interval has passed, `due` releases the newest held update, so a device that
/// stops reporting still ends up shown at its latest position. The subscription task
/// calls `due` after every batch and on the ticks of a timer every `tick`.
struct Thinning {
    /// When and where the last frame of a device went out.
    private struct Sent {
        var at: ContinuousClock.Instant
        var lat: Double
        var lon: Double
    }

    private let interval: Duration?
    private let minDistance: Double?
    private var sent: [String: Sent] = [:]
    private var held: [String: Publication] = [:]

    /// The thinning `request` asks for, counting the opening's `frames` as sent at
    /// `now`; nil when it asks for none.
    init?(_ request: SubscribeRequest, opening frames: [EncodedLocation], now: ContinuousClock.Instant) {
        let interval = request.minIntervalMs.flatMap { $0 > 0 ? Duration.milliseconds($0) : nil }
        let minDistance = request.minDistanceMeters.flatMap { $0 > 0 ? $0 : nil }
        guard interval != nil || minDistance != nil else { return nil }
        self.interval = interval
        self.minDistance = minDistance
        for frame in frames {
            sent[frame.location.device] = Sent(at: now, lat: frame.location.lat, lon: frame.location.lon)
        }
    }

    /// How often the task should look for held updates that are due (nil: never).
    var tick: Duration? {
        interval.map { max($0 / 4, .milliseconds(5)) }
    }

    /// The update to send now, or nil when it is held (interval) or skipped (distance).
    mutating func admit(_ publication: Publication, now: ContinuousClock.Instant) -> Publication? {
        let device = publication.device
        if let interval, let last = sent[device], now < last.at + interval {
            held[device] = publication
            return nil
        }
        held[device] = nil
        return passesDistance(publication, now: now)
    }

    /// The held updates whose interval has passed (those still far enough to send).
    mutating func due(now: ContinuousClock.Instant) -> [Publication] {
        guard let interval, !held.isEmpty else { return [] }
        let ready = held.filter { entry in sent[entry.key].map { now >= $0.at + interval } ?? true }
        for device in ready.keys { held[device] = nil }
        return ready.values.sorted { $0.receivedAt < $1.receivedAt }.compactMap { passesDistance($0, now: now) }
    }

    /// The device left the area: it starts afresh if it comes back.
    mutating func forget(_ device: String) {
        sent[device] = nil
        held[device] = nil
    }

    private mutating func passesDistance(_ publication: Publication, now: ContinuousClock.Instant) -> Publication? {
        let location = publication.update.location
        if let minDistance, let last = sent[location.device],
            GreatCircle.meters(fromLat: last.lat, lon: last.lon, toLat: location.lat, lon: location.lon) < minDistance
        {
            return nil
        }
        sent[location.device] = Sent(at: now, lat: location.lat, lon: location.lon)
        return publication
    }
}
