import Locking

/// The task that answers a server connection's messages while any wait, then ends.
///
/// A connection whose peer sends nothing holds no task: its handler waits in the inbound
/// queue (`InboundQueue.park`), and the service thread starts a drain with it when a
/// message arrives (`LiveSocket.receive`). The drain runs on the connection's service
/// thread, in the loop turn that read the message, answers every queued message in
/// order, and parks the handler again once the queue is empty. At most one drain runs
/// per connection, because only the one that holds the handler can start. It runs at
/// the handler's `answerPriority`, read again whenever the queue empties; when that
/// changes while messages wait, a new drain takes over at the new priority.
enum MessageDrain {
    /// Starts a drain with the handler in `parcel`, at `priority` (its `answerPriority`).
    static func start(
        _ parcel: Parcel<any MessageHandler>, at priority: TaskPriority, on channel: ConnectionChannel
    ) -> Task<Void, Never> {
        Task(executorPreference: channel.executor, priority: priority) {
            var next: Parcel<any MessageHandler>? = parcel
            while let parcel = next, let handler = parcel.open() {
                guard await answerQueued(with: handler, at: priority, on: channel) else { return }
                let nextPriority = handler.answerPriority
                let back = Parcel(handler)
                switch channel.inbound.withLock({ $0.park(back, priority: nextPriority) }) {
                case .parked:
                    return
                case .messagesWaiting where nextPriority == priority:
                    next = back
                case .messagesWaiting:
                    // A task's priority is fixed: a new drain answers the rest at the new one,
                    // started under the lock as `LiveSocket.receive` starts one.
                    let restarted = channel.inbound.withLock { queue in
                        guard !queue.isFinished else { return false }
                        queue.drain = start(back, at: nextPriority, on: channel)
                        return true
                    }
                    if !restarted { back.open()?.end() }
                    return
                case .closed:
                    back.open()?.end()
                    return
                }
            }
        }
    }

    /// Answers what is queued, while the handler's priority stays `priority`; false when
    /// the handler has ended (it asked to close, or the connection closed and this task
    /// was cancelled).
    private static func answerQueued(
        with handler: any MessageHandler, at priority: TaskPriority, on channel: ConnectionChannel
    ) async -> Bool {
        while handler.answerPriority == priority, let message = channel.nextMessageIfReady() ?? nil {
            guard !Task.isCancelled, await handler.handle(message) else {
                handler.end()
                channel.close(CloseRequest(code: 1000))
                return false
            }
        }
        return true
    }
}
