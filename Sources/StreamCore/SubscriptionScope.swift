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
/// task. The same `sub` with the same target is a no-op; with another target it is
/// `sub_id_reused`. Ending the scope cancels the task and releases its hub entries.
///
/// A scope is driven by its connection's task alone, one message at a time.
public final class SubscriptionScope {
    private struct Running {
        let request: SubscribeRequest
        let devices: [String]
        let stream: LocationStream
        let task: Task<Void, Never>
    }

    private let sink: any FrameSink
    private let hub: Hub
    private let broker: any Broker
    private let metrics: StreamMetrics
    private let logger: Logger
    private let connectionID: String
    private var running: Running?
    private var generation: UInt64 = 0

    /// A scope writing to `sink`, subscribing through `hub` and reading from `broker`.
    public init(
        sink: any FrameSink, hub: Hub, broker: any Broker, metrics: StreamMetrics,
        logger: Logger = Logger(component: "stream"), connectionID: String = ""
    ) {
        self.sink = sink
        self.hub = hub
        self.broker = broker
        self.metrics = metrics
        self.logger = logger
        self.connectionID = connectionID
    }

    /// The running subscription's id, if any.
    public var currentSub: String? { running?.request.sub }

    /// The running subscription's target, if any.
    public var currentTarget: SubscriptionTarget? { running?.request.target }

    /// Starts or switches the subscription. Validation comes first: a refused subscribe
    /// leaves the running one untouched.
    public func subscribe(_ request: SubscribeRequest) async throws(ProtocolError) {
        if let running, running.request.sub == request.sub {
            guard running.request.target == request.target else {
                throw ProtocolError(
                    .subIdReused, "sub '\(request.sub)' is already in use with another target; choose a new sub id",
                    failedOp: "subscribe")
            }
            sink.sendControl(ServerMessage.subscribed(sub: request.sub, restarted: false, snapshot: 0).encoded())
            return
        }
        guard case .devices(let devices) = request.target else {
            throw ProtocolError(.badRequest, "area subscriptions are not supported yet", failedOp: "subscribe")
        }
        let stream = LocationStream { [metrics] in metrics.framesDropped["conflated"]?.increment(by: $0) }
        hub.register(stream, for: devices)
        let opening: Opening
        do {
            opening = try await Opening.read(request, devices: devices, from: broker)
        } catch {
            hub.unregister(stream, from: devices)
            throw ProtocolError(.internal, "cannot read positions: \(error)", failedOp: "subscribe")
        }
        let replaced = stopRunning()
        if replaced { metrics.switches.increment() }
        generation += 1
        let ack = ServerMessage.subscribed(sub: request.sub, restarted: replaced, snapshot: opening.frames.count)
        let purged = sink.advance(to: generation, ack: ack.encoded())
        if purged > 0 { metrics.framesDropped["purged_on_switch"]?.increment(by: purged) }
        let prefix = LocationFrame.prefix(sub: request.sub)
        let delivery = Delivery(
            sink: sink, prefix: prefix, generation: generation, metrics: metrics, logger: logger,
            connectionID: connectionID)
        _ = opening.frames.allSatisfy { delivery.send($0) }
        let task = Self.deliver(stream, with: delivery, alreadySent: opening.lastSent)
        running = Running(request: request, devices: devices, stream: stream, task: task)
        metrics.subscriptions.add(1)
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
        hub.unregister(running.stream, from: running.devices)
        running.stream.finish()
        self.running = nil
        metrics.subscriptions.add(-1)
        return true
    }

    /// The subscription task: iterate the stream, skip what the opening already sent,
    /// and write each frame under this subscription's generation. It re-checks
    /// cancellation after every await, and the sink refuses its frames the moment a
    /// newer generation is current.
    private static func deliver(
        _ stream: LocationStream, with delivery: Delivery, alreadySent: [String: UInt64]
    ) -> Task<Void, Never> {
        Task {
            var lastSent = alreadySent
            for await batch in stream {
                guard !Task.isCancelled else { return }
                for publication in batch {
                    let location = publication.update.location
                    guard location.seq > lastSent[location.device, default: 0] else { continue }
                    guard delivery.send(publication.update, receivedAt: publication.receivedAt) else { return }
                    lastSent[location.device] = location.seq
                }
            }
        }
    }
}
