import LocstreamProtocol
import Observability

/// One connection's subscription, with the semantics of SwiftUI's `.task(id:)`.
///
/// `subscribed.restarted` is true when the subscribe replaced a running subscription,
/// and false for a first subscription (nothing was running) or the same-id no-op.
///
/// The connection is the view identity, the subscription's `sub` is the id, and the
/// subscription is one task iterating a `LocationStream`. A `subscribe` with a new
/// `sub` prepares the new subscription, then cancels the running task, then makes the
/// new generation current on the sink (purging every queued frame of the old one and
/// queueing `subscribed` in the same critical section), and only then starts the new
/// task. The same `sub` with the same target (devices compared as a set) and thinning is a
/// no-op; with another target or other thinning it is `sub_id_reused`. Ending the scope cancels the task and releases its hub entries.
///
/// A scope is driven by its connection's task alone, one message at a time.
public final class SubscriptionScope {
    private struct Running {
        let request: SubscribeRequest
        let registration: HubRegistration
        let stream: LocationStream
        let task: Task<Void, Never>
    }

    private let sink: any FrameSink
    private let node: Node
    private let connectionID: String
    private var running: Running?
    private var generation: UInt64 = 0
    /// The devices an area subscription may show: the token's `devices` claim.
    private var rights = DeviceRights.everyDevice

    private var hub: Hub { node.hub }
    private var metrics: StreamMetrics { node.metrics }

    /// A scope writing to `sink` for connection `connectionID`, subscribing through the
    /// node's hub and reading from its broker, within its limits (areas larger than
    /// `limits.maxAreaKm2` are refused).
    public init(sink: any FrameSink, node: Node, connectionID: String = "") {
        self.sink = sink
        self.node = node
        self.connectionID = connectionID
    }

    /// The running subscription's id, if any. For the tests (package access).
    package var currentSub: String? { running?.request.sub }

    /// The running subscription's target, if any.
    public var currentTarget: SubscriptionTarget? { running?.request.target }

    /// From now on, area subscriptions show only the devices `rights` allow: the
    /// running one at once, and every later one.
    public func restrict(to rights: DeviceRights) {
        self.rights = rights
        if let running { hub.restrict(running.registration, to: rights) }
    }

    /// Starts or switches the subscription. Validation comes first: a refused subscribe
    /// leaves the running one untouched.
    ///
    /// Only the broker reads are awaited here; what comes before and after them runs in
    /// synchronous, never-inlined steps. The task allocator keeps the deepest frame a
    /// connection's task ever reached for the connection's whole life, so this keeps
    /// every subscribed connection's memory small.
    public func subscribe(_ request: SubscribeRequest) async throws(ProtocolError) {
        guard let (watch, stream, registration) = try prepare(request) else { return }
        let opening: Opening
        do {
            try await node.broker.confirmInterest()
            opening = try await Opening.read(request, watching: watch, from: node.broker)
        } catch {
            hub.unregister(registration)
            throw ProtocolError(.internal, "cannot read positions: \(error)", failedOp: "subscribe")
        }
        start(request, registration: registration, stream: stream, opening: opening)
    }

    /// Answers a repeated `sub` (nil: no-op ack, or `sub_id_reused`), or checks the
    /// target and registers a new stream for it with the hub.
    @inline(never)
    private func prepare(_ request: SubscribeRequest) throws(ProtocolError) -> (
        Watch, LocationStream, HubRegistration
    )? {
        if let running, running.request.sub == request.sub {
            guard running.request.target.isSame(as: request.target) else {
                throw ProtocolError(
                    .subIdReused, "sub '\(request.sub)' is already in use with another target; choose a new sub id",
                    failedOp: "subscribe")
            }
            guard running.request.hasSameThinning(as: request) else {
                throw ProtocolError(
                    .subIdReused,
                    "sub '\(request.sub)' is already in use with other thinning (min_interval_ms, min_distance_m); choose a new sub id",
                    failedOp: "subscribe")
            }
            sink.sendControl(ServerMessage.subscribed(sub: request.sub, restarted: false, snapshot: 0).encoded())
            return nil
        }
        let watch = try resolve(request.target)
        let stream = LocationStream { [metrics] in metrics.framesDropped["conflated"]?.increment(by: $0) }
        return (watch, stream, hub.register(stream, for: watch))
    }

    /// The switch itself: cancels the running task, makes a new generation current
    /// (purging the old one's queued frames and queueing the ack), sends the opening and
    /// only then starts the new task.
    @inline(never)
    private func start(
        _ request: SubscribeRequest, registration: HubRegistration, stream: LocationStream, opening: Opening
    ) {
        let replaced = stopRunning()
        if replaced { metrics.switches.increment() }
        generation += 1
        // Counted before the ack is queued, so a client that has its ack sees itself in /metrics.
        metrics.subscriptions.add(1)
        let ack = ServerMessage.subscribed(sub: request.sub, restarted: replaced, snapshot: opening.frames.count)
        let purged = sink.advance(to: generation, ack: ack.encoded())
        if purged > 0 { metrics.framesDropped["purged_on_switch"]?.increment(by: purged) }
        let delivery = Delivery(
            sink: sink, sub: request.sub, generation: generation, metrics: metrics, logger: node.logger,
            connectionID: connectionID)
        let newest = Dictionary(opening.frames.map { ($0.location.device, $0) }) {
            $0.location.seq >= $1.location.seq ? $0 : $1
        }
        let offline = Set(newest.values.filter { !node.presence.isOnline($0) }.map(\.location.device))
        _ = opening.frames.allSatisfy { delivery.sendOpening($0, online: !offline.contains($0.location.device)) }
        let task = SubscriptionTask.start(
            stream, with: delivery, gate: FrameGate(request, opening: opening, offline: offline))
        running = Running(request: request, registration: registration, stream: stream, task: task)
    }

    /// Ends the running subscription and acknowledges with `unsubscribed`.
    public func unsubscribe() throws(ProtocolError) {
        guard let sub = running?.request.sub else {
            throw ProtocolError(.notSubscribed, "there is no subscription to stop", failedOp: "unsubscribe")
        }
        stopRunning()
        generation += 1
        let purged = sink.advance(to: generation, ack: ServerMessage.unsubscribed(sub: sub).encoded())
        if purged > 0 { metrics.framesDropped["purged_on_switch"]?.increment(by: purged) }
    }

    /// The connection is gone: cancel the task and release what it held.
    public func end() {
        stopRunning()
    }

    /// Cancels the running task (first), then releases its hub entries and stream.
    @discardableResult
    private func stopRunning() -> Bool {
        guard let running else { return false }
        running.task.cancel()
        hub.unregister(running.registration)
        running.stream.finish()
        self.running = nil
        metrics.subscriptions.add(-1)
        return true
    }

    /// What `target` watches, checked: an area must be valid and at most `maxAreaKm2`,
    /// and shows only the devices the connection's rights allow.
    private func resolve(_ target: SubscriptionTarget) throws(ProtocolError) -> Watch {
        switch target {
        case .devices(let devices):
            return .devices(devices)
        case .area(let area):
            let checked: GeoArea
            do {
                checked = try GeoArea(area)
            } catch {
                throw ProtocolError(.badRequest, "area: \(error.message)", failedOp: "subscribe")
            }
            guard checked.squareKilometres <= node.limits.maxAreaKm2 else {
                throw ProtocolError(
                    .badRequest,
                    "area covers \(Int(checked.squareKilometres.rounded())) km²; at most \(Int(node.limits.maxAreaKm2)) km² are allowed",
                    failedOp: "subscribe")
            }
            return .area(checked, rights)
        }
    }
}
