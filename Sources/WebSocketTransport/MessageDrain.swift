import Locking

/// The task that answers a server connection's messages while any wait, then ends.
///
/// A connection whose peer sends nothing holds no task: its handler waits in the inbound
/// queue (`InboundQueue.park`), and the service thread starts a drain with it when a
/// message arrives (`LiveSocket.receive`). The drain runs on the connection's service
/// thread, in the loop turn that read the message, answers every queued message in
/// order, and parks the handler again once the queue is empty. At most one drain runs
/// per connection, because only the one that holds the handler can start.
enum MessageDrain {
    /// Starts a drain with the handler in `parcel`.
    static func start(_ parcel: Parcel<any MessageHandler>, on channel: ConnectionChannel) -> Task<Void, Never> {
        Task(executorPreference: channel.executor) {
            var next: Parcel<any MessageHandler>? = parcel
            while let parcel = next, let handler = parcel.open() {
                guard await answerQueued(with: handler, on: channel) else { return }
                let back = Parcel(handler)
                switch channel.inbound.withLock({ $0.park(back) }) {
                case .parked:
                    return
                case .messagesWaiting:
                    next = back
                case .closed:
                    back.open()?.end()
                    return
                }
            }
        }
    }

    /// Answers what is queued; false when the handler has ended (it asked to close, or
    /// the connection closed and this task was cancelled).
    private static func answerQueued(with handler: any MessageHandler, on channel: ConnectionChannel) async -> Bool {
        while let message = channel.nextMessageIfReady() ?? nil {
            guard !Task.isCancelled, await handler.handle(message) else {
                handler.end()
                channel.close(CloseRequest(code: 1000))
                return false
            }
        }
        return true
    }
}
