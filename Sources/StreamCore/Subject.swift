/// What a node can be interested in upstream: one device's updates, or every update
/// that enters, stays in or leaves one grid cell (for area subscriptions).
public enum Subject: Hashable, Sendable {
    case device(String)
    case cell(Int)
}

/// Which of a hub's subscribers a delivery is for. A shared broker hears a device's
/// update on the device's channel and on its cells' channels, and hands each copy
/// only to the subscribers that channel serves.
public enum Audience: Sendable {
    /// Device and area subscribers alike: the embedded broker's one delivery.
    case everyone
    /// Subscribers of the device.
    case deviceWatchers
    /// Area subscriptions the update enters, stays in or leaves.
    case areaWatchers
}
