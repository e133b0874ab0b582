import LocstreamProtocol

/// A location on its way from the broker to subscribers, with the moment the hub
/// received it, so delivery can measure publish-to-send latency.
public struct Publication: Sendable {
    /// The encoded location, shared by every subscriber.
    public let update: EncodedLocation
    /// When the hub received it.
    public let receivedAt: ContinuousClock.Instant

    /// `update`, received now.
    public init(_ update: EncodedLocation, receivedAt: ContinuousClock.Instant = .now) {
        self.update = update
        self.receivedAt = receivedAt
    }
}
