import LocstreamProtocol

/// Where a broker reports what it hears: the node's side of the broker (centrifuge's
/// `BrokerEventHandler`). Both brokers have this one shape. The node gives each broker
/// its handler in `Broker.run(reporting:)` and feeds the hub from it; no broker holds
/// the hub.
public protocol BrokerEventHandler: Sendable {
    /// A publication the broker heard, called in its device's seq order: deliver
    /// `update` to `audience`, given the device's `previous` position (nil when it had
    /// none, or when the audience is the device's subscribers alone).
    func handlePublication(_ update: EncodedLocation, previous: Location?, to audience: Audience)

    /// Whether some local subscriber watches `subject` now.
    func isWatched(_ subject: Subject) -> Bool

    /// Every subject some local subscriber watches now.
    var watchedSubjects: [Subject] { get }
}

/// The node's broker event handler: what a broker hears goes to the hub, and to the
/// presence tracker.
struct HubFeed: BrokerEventHandler {
    let hub: Hub
    let presence: PresenceTracker

    func handlePublication(_ update: EncodedLocation, previous: Location?, to audience: Audience) {
        presence.heard(update)
        hub.deliver(update, previous: previous, to: audience)
    }

    func isWatched(_ subject: Subject) -> Bool { hub.isWatched(subject) }

    var watchedSubjects: [Subject] { hub.watchedSubjects }
}
