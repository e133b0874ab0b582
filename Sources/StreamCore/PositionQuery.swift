import LocstreamProtocol

/// A geo query over last-known positions (`GET /v1/devices?bbox=…` or `?near=…`): the
/// devices inside `area` that `rights` allow, at most `limit` of them, in no particular
/// order or, for `near`, nearest first with their distances.
///
/// A broker finds candidates (a superset, from its position index or Redis's geo set)
/// and hands them to `collect`, which does the exact tests, so the embedded broker and
/// Redis answer alike.
public struct PositionQuery: Sendable {
    /// The order of the answer.
    public enum Order: Sendable, Equatable {
        /// Any order (a box): a broker may stop once it has found more than `limit`.
        case any
        /// Nearest first from the area's centre (a `near` circle), with distances.
        case nearest
    }

    /// Where to look: a box (wrapping across the antimeridian when `minLon > maxLon`) or
    /// a great-circle disc.
    public let area: GeoArea
    public let order: Order
    /// The most devices to return (at least 1).
    public let limit: Int
    /// The devices the asker may see.
    public let rights: DeviceRights

    /// A query of `area` for at most `limit` devices (1 or more) that `rights` allow;
    /// a circle is answered nearest first.
    public init(area: GeoArea, limit: Int, rights: DeviceRights = .everyDevice) {
        self.area = area
        if case .circle = area.area { order = .nearest } else { order = .any }
        self.limit = max(limit, 1)
        self.rights = rights
    }

    /// The answer from `candidates` (each device at most once; those outside the area or
    /// the rights are skipped): at most `limit`, nearest first for `.nearest`, and
    /// whether more matched. With `.any` it reads no further than one match past `limit`.
    public func collect(_ candidates: some Sequence<EncodedLocation>) -> PositionQueryResult {
        var matches = candidates.lazy.filter { area.contains($0.location) && rights.allows($0.location.device) }
            .map { PositionQueryResult.Match(update: $0, distanceMeters: distance(to: $0.location)) }
            .prefix(order == .any ? limit + 1 : .max)
            .reduce(into: [PositionQueryResult.Match]()) { $0.append($1) }
        if order == .nearest {
            matches.sort { ($0.distanceMeters ?? 0, $0.device) < ($1.distanceMeters ?? 0, $1.device) }
        }
        let truncated = matches.count > limit
        if truncated { matches.removeLast(matches.count - limit) }
        return PositionQueryResult(matches: matches, truncated: truncated)
    }

    /// The distance from the centre of a `near` query; nil for a box.
    private func distance(to location: Location) -> Double? {
        guard case .circle(let lon, let lat, _) = area.area else { return nil }
        return GreatCircle.meters(fromLat: lat, lon: lon, toLat: location.lat, lon: location.lon)
    }
}

/// The answer to a `PositionQuery`.
public struct PositionQueryResult: Sendable {
    /// One device found.
    public struct Match: Sendable {
        /// Its last known position, as encoded.
        public let update: EncodedLocation
        /// Its great-circle distance from the centre of a `near` query; nil for a box.
        public let distanceMeters: Double?

        var device: String { update.location.device }
    }

    /// The devices found, nearest first for `near`.
    public var matches: [Match]
    /// Whether more devices matched than the query's limit.
    public var truncated: Bool
}
