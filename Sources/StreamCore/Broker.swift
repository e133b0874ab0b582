import LocstreamProtocol

/// Where publications meet: it orders each device's updates (assigning `seq`), keeps
/// last-known positions and a bounded history, and reports every publication it hears
/// to its node's `BrokerEventHandler`. The embedded `LocalBroker` is the default; a
/// Redis broker shares all of this between nodes.
public protocol Broker: AnyObject, Sendable {
    /// The grid areas are indexed on; the node's hub uses the same one.
    var grid: GeoGrid { get }

    /// Whether the broker follows the hub's interest (`interestChanged`): a shared
    /// broker subscribes upstream to what local clients watch; the embedded one hears
    /// everything anyway.
    var followsInterest: Bool { get }

    /// Starts the broker, reporting every publication it hears from now on to
    /// `events`. The node calls it once, when it is built, before anything else.
    func run(reporting events: any BrokerEventHandler)

    /// `subject` gained its first or lost its last local subscriber. The node calls it
    /// under the hub's lock when `followsInterest`: note the subject and return.
    func interestChanged(_ subject: Subject)

    /// Assigns each location the next `seq` of its device, stores it as the last known
    /// position and in history, and delivers it to local subscribers. All or nothing.
    /// When `confirmed`, it returns only once the locations are stored for good (the
    /// publisher is about to be told so: an ack, an HTTP 202); otherwise once they are
    /// accepted and delivered, so a publisher that asked for no answer is not held back
    /// by the disk.
    func publish(_ locations: [Location], confirmed: Bool) async throws(BrokerError) -> [EncodedLocation]

    /// The last known position of each of `devices` that has one, in the given order.
    func lastKnown(_ devices: [String]) async throws(BrokerError) -> [EncodedLocation]

    /// The last known position of every device whose last known position is inside
    /// `area`, in no particular order: the snapshot of an area subscription.
    func lastKnown(in area: GeoArea) async throws(BrokerError) -> [EncodedLocation]

    /// The answer to `query` from the last known positions: at most its limit of the
    /// devices inside its area that its rights allow (nearest first for `near`), and
    /// whether more matched (`PositionQuery.collect` does the exact tests).
    func positions(matching query: PositionQuery) async throws(BrokerError) -> PositionQueryResult

    /// The updates of `device` after `seq`, oldest first, as far back as history
    /// reaches, and the device's current seq (0 when it never published).
    func replay(_ device: String, after seq: UInt64) async throws(BrokerError) -> Replay

    /// Returns once every subject the hub watched when it was called is subscribed
    /// upstream, so a read that follows cannot miss an update published after it. A
    /// subscription calls it between registering with the hub and reading its opening.
    /// The local broker, which hears every publication itself, returns at once.
    func confirmInterest() async throws(BrokerError)

    /// Whether the broker can serve requests now (`/readyz`, `broker_up`).
    var isReachable: Bool { get }

    /// Closes the broker's outside connections at shutdown; the local broker has none.
    func close()
}

extension Broker {
    /// Publishes `locations` and returns once they are stored for good: `publish(_:confirmed:)`.
    public func publish(_ locations: [Location]) async throws(BrokerError) -> [EncodedLocation] {
        try await publish(locations, confirmed: true)
    }
}

/// What history holds for one device after a given seq.
public struct Replay: Sendable {
    /// The updates, oldest first.
    public var updates: [EncodedLocation]
    /// The device's newest seq (0 if it never published).
    public var latestSeq: UInt64

    /// A replay of `updates` for a device whose newest seq is `latestSeq`.
    public init(updates: [EncodedLocation], latestSeq: UInt64) {
        self.updates = updates
        self.latestSeq = latestSeq
    }
}

/// A broker operation failed; the message is for the client (`internal`) and the log.
public struct BrokerError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, in words.
    public var description: String
    /// Whether the operation may have taken effect all the same: it reached the store,
    /// whose answer never came (a timeout, a connection lost while waiting).
    public var outcomeUnknown: Bool
    /// Whether a publish was refused whole because it named new devices past
    /// `--max-devices`; nothing was stored.
    public var deviceLimit: Bool

    /// An error saying `description`; `outcomeUnknown` when the store may have done it.
    public init(_ description: String, outcomeUnknown: Bool = false) {
        self.description = description
        self.outcomeUnknown = outcomeUnknown
        deviceLimit = false
    }

    /// A publish refused because it would track more than `maxDevices` devices.
    public static func deviceLimit(_ maxDevices: Int) -> BrokerError {
        var error = BrokerError(
            "device limit reached: this deployment tracks at most \(maxDevices) devices; known devices keep updating")
        error.deviceLimit = true
        return error
    }
}
