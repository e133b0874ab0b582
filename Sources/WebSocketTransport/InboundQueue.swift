import Locking

/// Messages received but not yet consumed, bounded by a high watermark.
///
/// A client connection's consumer is a task that waits in `waiter`; a server
/// connection's is its `MessageHandler`, parked here while no task answers messages.
///
/// When the queue reaches `highWatermark` messages the service loop stops reading
/// from the socket (`lws_rx_flow_control`); once the consumer drains it to
/// `lowWatermark`, reading resumes. Memory per connection stays bounded whatever the
/// peer sends.
struct InboundQueue {
    static let highWatermark = 64
    static let lowWatermark = 16
    /// The cap for connections whose reading cannot be paused (see `LiveSocket`).
    static let unpausableLimit = 4096

    private var messages: [InboundMessage] = []
    private var head = 0
    /// A consumer suspended in `next()`, waiting for a message or the end. Whoever
    /// resumes it takes it out under the lock first, so it is resumed exactly once (an
    /// unsafe continuation: no allocation per wait, no runtime check).
    var waiter: UnsafeContinuation<InboundMessage?, Never>?
    /// No more messages will arrive.
    private(set) var isFinished = false
    /// The loop stopped reading because the queue was full.
    var isReadingPaused = false

    var count: Int { messages.count - head }

    /// Server side: the connection's message handler while no task answers its messages
    /// (`MessageDrain`); nil while one does, and once it has ended.
    private var parkedHandler: Parcel<any MessageHandler>?
    /// The priority the parked handler answers at (its `answerPriority` when it parked).
    private var parkedPriority = TaskPriority.high

    /// Queues a message (server side). Returns whether the queue is full and reading
    /// should pause, and the parked handler, if any, with its priority: the caller starts
    /// a task with it.
    mutating func deliver(
        _ message: InboundMessage
    ) -> (full: Bool, handler: (parcel: Parcel<any MessageHandler>, priority: TaskPriority)?) {
        messages.append(message)
        return (count >= Self.highWatermark, parkedHandler.take().map { ($0, parkedPriority) })
    }

    /// The running drain (server side), for a close to cancel; nil once it has parked its
    /// handler, so a finished task is not kept.
    var drain: Task<Void, Never>?

    /// Parks `handler` (server side), to answer at `priority` next, when nothing is
    /// queued and the connection is open.
    mutating func park(_ handler: Parcel<any MessageHandler>, priority: TaskPriority) -> ParkOutcome {
        if isFinished {
            drain = nil
            return .closed
        }
        guard count == 0 else { return .messagesWaiting }
        parkedHandler = handler
        parkedPriority = priority
        drain = nil
        return .parked
    }

    /// What `park` did.
    enum ParkOutcome {
        case parked
        /// Messages arrived meanwhile: the caller answers them first.
        case messagesWaiting
        /// The connection has closed: the caller ends the handler.
        case closed
    }

    /// Adds a message without resuming a waiting consumer: the service loop calls `wake()`
    /// once its turn has read everything the socket had, so the consumer takes the turn's
    /// messages in one wake-up. Returns whether reading should pause (as `deliver`) and
    /// whether a consumer waits, to be woken.
    mutating func deliverDeferringWake(_ message: InboundMessage) -> (full: Bool, wake: Bool) {
        messages.append(message)
        return (count >= Self.highWatermark, waiter != nil)
    }

    /// Takes a waiting consumer and the oldest queued message, if both are there, for the
    /// caller to resume once it has let go of the lock: a consumer woken under the lock
    /// would, on a busy core, run at once and spin on it.
    mutating func wake() -> (waiter: UnsafeContinuation<InboundMessage?, Never>, message: InboundMessage)? {
        guard let waiter, let message = pop() else { return nil }
        self.waiter = nil
        return (waiter, message)
    }

    /// Takes the oldest queued message, if any.
    mutating func pop() -> InboundMessage? {
        guard head < messages.count else { return nil }
        let message = messages[head]
        head += 1
        if head == messages.count {
            messages.removeAll(keepingCapacity: messages.count <= Self.highWatermark)
            head = 0
        }
        return message
    }

    /// Takes every queued message, oldest first (empty when none is queued).
    mutating func popAll() -> [InboundMessage] {
        guard head < messages.count else { return [] }
        let taken = head == 0 ? messages : Array(messages[head...])
        messages.removeAll(keepingCapacity: messages.count <= Self.highWatermark)
        head = 0
        return taken
    }

    /// Ends the sequence: queued messages can still be taken, then `nil` follows.
    /// (A waiter whose wake was deferred gets the oldest message; otherwise the queue is
    /// empty and it gets `nil` at once.)
    mutating func finish() {
        isFinished = true
        guard let waiter else { return }
        self.waiter = nil
        waiter.resume(returning: pop())
    }

    /// Takes the parked handler (server side), if any: for the caller to end it once the
    /// queue has finished.
    mutating func takeParkedHandler() -> Parcel<any MessageHandler>? {
        parkedHandler.take()
    }

    /// Resumes a waiting consumer with `nil` (end or cancellation).
    mutating func resumeWaiter() {
        waiter?.resume(returning: nil)
        waiter = nil
    }
}
