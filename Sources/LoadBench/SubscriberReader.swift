import WebSocketTransport

/// Reads one subscriber connection until it closes or the reading task is cancelled.
struct SubscriberReader: Sendable {
    let connection: WebSocketConnection
    let shared: BenchShared
    /// Devices per subscription, to size the per-device state.
    let devices: Int

    /// Reads every frame; returns true when it stopped because it was cancelled, false when
    /// the connection ended on its own (counted as a disconnect).
    @discardableResult
    func run() async -> Bool {
        var receiver = FrameReceiver(shared: shared, devices: devices)
        for await message in connection.messages {
            receiver.receive(message.bytes, at: WallClock.micros())
        }
        receiver.flush()
        let cancelled = Task.isCancelled
        if !cancelled { shared.tally.withLock { $0.disconnects += 1 } }
        return cancelled
    }
}
