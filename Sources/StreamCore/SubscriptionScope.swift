import Locking
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
/// An aggregated area subscription (`aggregate`) has the same scope, switch and generation;
/// its task is a `CellsTask`, which counts from the broker's positions instead of a stream.
///
/// A scope is driven by its connection's task alone, one message at a time.
public final class SubscriptionScope {
    private struct Running {
        let request: SubscribeRequest
        let task: Task<Void, Never>
        /// Releases what the subscription holds besides its task: hub entries, its stream.
        let release: () -> Void
        /// Makes it show only the devices the given rights allow, from now on.
        let restrict: (DeviceRights) -> Void
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
        running?.restrict(rights)
    }

    /// Starts or switches the subscription. Validation comes first: a refused subscribe
    /// leaves the running one untouched. The broker reads the opening needs are the
    /// returned step, which makes the switch when awaited; nil when nothing is left to
    /// wait for (a repeated `sub`).
    public func subscribe(_ request: SubscribeRequest) throws(ProtocolError) -> AwaitedStep? {
        guard try !answersRepeat(request) else { return nil }
        let begun = ContinuousClock.now
        if let aggregation = request.aggregate {
            let cells = try resolve(request.target, aggregation)
            let read: () async throws -> [EncodedLocation] = { [node] in
                try await node.areaReads.read(cells.area, from: node.broker)
            }
            return .awaiting(read) { result throws(ProtocolError) in
                self.start(request, cells: cells, positions: try Self.read(result))
                self.metrics.subscribeToAck.observe(begun.duration(to: .now))
            }
        }
        let (watch, stream, registration) = try prepare(request)
        let read: () async throws -> Opening = { [node] in
            try await node.broker.confirmInterest()
            return try await Opening.read(request, watching: watch, from: node.broker)
        }
        return .awaiting(read) { result throws(ProtocolError) in
            do throws(ProtocolError) {
                self.start(request, registration: registration, stream: stream, opening: try Self.read(result))
                self.metrics.subscribeToAck.observe(begun.duration(to: .now))
            } catch {
                self.hub.unregister(registration)
                throw error
            }
        }
    }

    /// What a subscribe's broker read returned; `internal` if it failed.
    private static func read<Value>(_ result: Result<Value, any Error>) throws(ProtocolError) -> Value {
        switch result {
        case .success(let value): return value
        case .failure(let error):
            throw ProtocolError(.internal, "cannot read positions: \(error)", failedOp: "subscribe")
        }
    }

    /// Answers a repeated `sub`: true after a no-op ack; `sub_id_reused` for another target.
    /// False for a new `sub`.
    private func answersRepeat(_ request: SubscribeRequest) throws(ProtocolError) -> Bool {
        if let running, running.request.sub == request.sub {
            guard running.request.target.isSame(as: request.target) else {
                throw ProtocolError(
                    .subIdReused, "sub '\(request.sub)' is already in use with another target; choose a new sub id",
                    failedOp: "subscribe")
            }
            guard running.request.hasSameThinning(as: request) else {
                throw ProtocolError(
                    .subIdReused,
                    "sub '\(request.sub)' is already in use with other thinning or aggregation (min_interval_ms, min_distance_m, aggregate); choose a new sub id",
                    failedOp: "subscribe")
            }
            sink.sendControl(ServerMessage.subscribed(sub: request.sub, restarted: false, snapshot: 0).encoded())
            return true
        }
        return false
    }

    /// Checks the target and registers a new stream for it with the hub.
    @inline(never)
    private func prepare(_ request: SubscribeRequest) throws(ProtocolError) -> (
        Watch, LocationStream, HubRegistration
    ) {
        let watch = try resolve(request.target)
        let stream = LocationStream { [metrics] in metrics.framesDropped["conflated"]?.increment(by: $0) }
        return (watch, stream, hub.register(stream, for: watch))
    }

    /// The switch itself: cancels the running task, makes a new generation current
    /// (purging the old one's queued frames and queueing the ack), queues as much of the
    /// opening as the connection has room for, and only then starts the new task, which
    /// sends the rest of the opening (`OpeningSender`) before anything live.
    @inline(never)
    private func start(
        _ request: SubscribeRequest, registration: HubRegistration, stream: LocationStream, opening: Opening
    ) {
        let delivery = switchTo(request, snapshot: opening.frames.count)
        let newest = Dictionary(opening.frames.map { ($0.location.device, $0) }) {
            $0.location.seq >= $1.location.seq ? $0 : $1
        }
        let offline = Set(newest.values.filter { !node.presence.isOnline($0) }.map(\.location.device))
        var sender = OpeningSender(opening, offline: offline)
        let started = sender.sendWhatFits(to: delivery)
        let task = SubscriptionTask.start(
            stream, with: delivery, gate: FrameGate(request, opening: opening, offline: offline),
            openingRest: started && !sender.isDone ? (Locked(sender), node.limits.snapshotStallTimeout) : nil)
        running = Running(
            request: request, task: task,
            release: { [hub] in
                hub.unregister(registration)
                stream.finish()
            },
            restrict: { [hub] in hub.restrict(registration, to: $0) })
    }

    /// The switch to an aggregated area: its first `cells` frame (the whole area, counted
    /// from `positions`) is its snapshot; then its task sends what changed.
    @inline(never)
    private func start(_ request: SubscribeRequest, cells: AggregatedArea, positions: [EncodedLocation]) {
        let delivery = switchTo(request, snapshot: 1)
        let rights = Locked(self.rights)
        var view = CellsView()
        _ = CellsTask.send(positions, of: cells, rights: self.rights, view: &view, to: delivery, always: true)
        let interval = Duration.milliseconds(max(request.minIntervalMs ?? 1000, 100))
        let task = CellsTask.start(cells, rights: rights, every: interval, view: view, node: node, delivery: delivery)
        running = Running(request: request, task: task, release: {}, restrict: { new in rights.withLock { $0 = new } })
    }

    /// Cancels the running task, makes a new generation current (purging the old one's
    /// queued frames and queueing `subscribed` with `snapshot`), and returns the new
    /// subscription's delivery.
    private func switchTo(_ request: SubscribeRequest, snapshot: Int) -> Delivery {
        let replaced = stopRunning()
        if replaced { metrics.switches.increment() }
        generation += 1
        // Counted before the ack is queued, so a client that has its ack sees itself in /metrics.
        metrics.subscriptions.add(1)
        let ack = ServerMessage.subscribed(sub: request.sub, restarted: replaced, snapshot: snapshot)
        let purged = sink.advance(to: generation, ack: ack.encoded())
        if purged > 0 { metrics.framesDropped["purged_on_switch"]?.increment(by: purged) }
        return Delivery(sink: sink, sub: request.sub, generation: generation, node: node, connectionID: connectionID)
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
        running.release()
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
            let checked = try check(area)
            guard checked.squareKilometres <= node.limits.maxAreaKm2 else {
                throw ProtocolError(
                    .badRequest,
                    "area covers \(Int(checked.squareKilometres.rounded())) km²; at most \(Int(node.limits.maxAreaKm2)) km² are allowed",
                    failedOp: "subscribe")
            }
            return .area(checked, rights)
        }
    }

    /// The aggregated area `target` names, checked: a valid area of at most `maxCells`
    /// cells of `aggregation`'s size (the decoder already refused a device target).
    private func resolve(_ target: SubscriptionTarget, _ aggregation: CellAggregation) throws(ProtocolError)
        -> AggregatedArea
    {
        guard case .area(let area) = target else {
            throw ProtocolError(.badRequest, "aggregate needs an area target", failedOp: "subscribe")
        }
        let checked = try check(area)
        do {
            return try AggregatedArea(checked, aggregation, maxCells: node.limits.maxCells)
        } catch {
            throw ProtocolError(.badRequest, "aggregate: \(error.message)", failedOp: "subscribe")
        }
    }

    private func check(_ area: Area) throws(ProtocolError) -> GeoArea {
        do {
            return try GeoArea(area)
        } catch {
            throw ProtocolError(.badRequest, "area: \(error.message)", failedOp: "subscribe")
        }
    }
}
