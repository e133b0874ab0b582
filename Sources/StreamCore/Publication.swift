import LocstreamProtocol

/// A location on its way from the broker to subscribers, with the moment the hub
/// received it, so delivery can measure publish-to-send latency.
public struct Publication: Sendable {
    /// What a subscriber is told about the update.
    public enum Kind: Sendable, Equatable {
        /// The device is watched (or inside the area): send its location.
        case location
        /// The device left the area of an area subscription: send `leave`. The update
        /// is its new position, outside; its seq orders the leave among the locations.
        case leave
        /// The device went offline (`PresenceTracker`): send `presence` with
        /// `online:false`. The update is its last position; its next location comes with
        /// `online:true` first.
        case offline
    }

    /// The update and the moment it arrived, in one box every stream shares: a
    /// publication pushed to many subscribers costs one reference count per copy, not a
    /// copy of each of the location's fields.
    private final class Shared: Sendable {
        let update: EncodedLocation
        let receivedAt: ContinuousClock.Instant

        init(update: EncodedLocation, receivedAt: ContinuousClock.Instant) {
            self.update = update
            self.receivedAt = receivedAt
        }
    }

    private let shared: Shared
    /// A location or a leave.
    public let kind: Kind

    /// The encoded location, shared by every subscriber.
    public var update: EncodedLocation { shared.update }
    /// When the hub received it.
    public var receivedAt: ContinuousClock.Instant { shared.receivedAt }
    /// The update's device: read on its own, it costs no copy of the rest of the update.
    public var device: String { shared.update.location.device }
    /// The update's seq.
    public var seq: UInt64 { shared.update.location.seq }
    /// The update's encoded members (`EncodedLocation.body`).
    var body: [UInt8] { shared.update.body }

    /// `update`, received now.
    public init(_ update: EncodedLocation, receivedAt: ContinuousClock.Instant = .now, kind: Kind = .location) {
        shared = Shared(update: update, receivedAt: receivedAt)
        self.kind = kind
    }

    private init(shared: Shared, kind: Kind) {
        self.shared = shared
        self.kind = kind
    }

    /// The same update, received at the same moment, told as `kind`.
    func told(as kind: Kind) -> Publication {
        kind == self.kind ? self : Publication(shared: shared, kind: kind)
    }
}
