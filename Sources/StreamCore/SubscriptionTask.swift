/// The task of one subscription: it iterates the subscription's stream, lets its
/// `FrameGate` decide what to send, and writes each frame under the subscription's
/// generation.
///
/// It re-checks cancellation after every await, and the sink refuses its frames the
/// moment a newer generation is current. With `min_interval_ms`, a child ticker wakes
/// it so held updates go out when their interval ends; the ticker ends with it.
enum SubscriptionTask {
    static func start(_ stream: LocationStream, with delivery: Delivery, gate: FrameGate) -> Task<Void, Never> {
        Task {
            var gate = gate
            let ticker = gate.tick.map { period in
                Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: period)
                        stream.wake()
                    }
                }
            }
            defer { ticker?.cancel() }
            for await batch in stream {
                guard !Task.isCancelled else { return }
                let now = ContinuousClock.now
                let frames = batch.compactMap { gate.admit($0, now: now) } + gate.due(now: now)
                guard frames.allSatisfy({ delivery.send($0) }) else { return }
            }
        }
    }
}
