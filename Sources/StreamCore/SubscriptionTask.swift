import Locking

/// The task of one subscription: it iterates the subscription's stream, lets its
/// `FrameGate` decide what to send, and writes each frame under the subscription's
/// generation.
///
/// It runs on the sink's executor (the connection's service thread), so what it queues
/// is written in the same loop turn, at `.medium` priority whatever started it: frames
/// wait behind a subscriber's urgent answers there (`MessageHandler.answerPriority`).
/// It re-checks cancellation after every await, and the sink refuses its frames the
/// moment a newer generation is current. With `min_interval_ms`, a child ticker wakes it
/// so held updates go out when their interval ends; the ticker ends with it.
enum SubscriptionTask {
    /// Starts the task; it first sends `openingRest`, the part of the opening the switch
    /// had no room for, if any, closing the connection if the peer reads none of it for
    /// its `stallTimeout`.
    static func start(
        _ stream: LocationStream, with delivery: Delivery, gate: FrameGate,
        openingRest: (frames: Locked<OpeningSender?>, stallTimeout: Duration)? = nil
    ) -> Task<Void, Never> {
        let gated = GatedDelivery(gate: gate, delivery: delivery)
        return Task(executorPreference: delivery.sink.executor, priority: .medium) {
            if let openingRest,
                await !send(openingRest.frames, to: gated.delivery, stallTimeout: openingRest.stallTimeout)
            {
                return
            }
            let ticker = gated.tick.map { period in
                Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: period)
                        stream.wake()
                    }
                }
            }
            defer { ticker?.cancel() }
            for await batch in stream {
                guard !Task.isCancelled, gated.send(batch) else { return }
            }
        }
    }

    /// Sends the rest of the opening, taken out of its box so that the task does not keep
    /// the frames once they are queued; false when the subscription should stop.
    @inline(never)
    private static func send(
        _ openingRest: Locked<OpeningSender?>, to delivery: Delivery, stallTimeout: Duration
    ) async -> Bool {
        guard var sender = openingRest.withLock({ $0.take() }) else { return true }
        return await sender.sendRest(to: delivery, stallTimeout: stallTimeout)
    }

}

/// A subscription's `FrameGate` and `Delivery`, kept on the heap: the subscription task
/// holds one reference to them across its awaits instead of their copies, which keeps
/// its frames (and so the memory every subscribed connection holds) small.
private final class GatedDelivery {
    private var gate: FrameGate
    let delivery: Delivery

    init(gate: FrameGate, delivery: Delivery) {
        self.gate = gate
        self.delivery = delivery
    }

    /// How often held frames fall due (`min_interval_ms`), if they can.
    var tick: Duration? { gate.tick }

    /// Sends what the gate lets through of `batch`, plus held frames now due; false when
    /// the subscription should stop. Never inlined, so its locals stay off the task's
    /// async frame, which lives as long as the subscription.
    @inline(never)
    func send(_ batch: [Publication]) -> Bool {
        let now = ContinuousClock.now
        var tally = Delivery.Tally()
        defer { delivery.record(tally) }
        for publication in batch {
            guard let frame = gate.admit(publication, now: now) else { continue }
            guard delivery.send(frame, at: now, into: &tally) else { return false }
        }
        return gate.due(now: now).allSatisfy { delivery.send($0, at: now, into: &tally) }
    }
}
