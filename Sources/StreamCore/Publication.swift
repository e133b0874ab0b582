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

    /// The encoded location, shared by every subscriber.
    public let update: EncodedLocation
    /// When the hub received it.
    public let receivedAt: ContinuousClock.Instant
    /// A location or a leave.
    public let kind: Kind

    /// `update`, received now.
    public init(_ update: EncodedLocation, receivedAt: ContinuousClock.Instant = .now, kind: Kind = .location) {
        self.update = update
        self.receivedAt = receivedAt
        self.kind = kind
    }
}
