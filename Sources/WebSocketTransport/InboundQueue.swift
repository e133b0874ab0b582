/// Messages received but not yet consumed, bounded by a high watermark.
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

    /// Adds a message: hands it to a waiting consumer, or queues it.
    /// Returns true when the queue is full and reading should pause.
    mutating func deliver(_ message: InboundMessage) -> Bool {
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: message)
            return false
        }
        messages.append(message)
        return count >= Self.highWatermark
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

    /// Resumes a waiting consumer with `nil` (end or cancellation).
    mutating func resumeWaiter() {
        waiter?.resume(returning: nil)
        waiter = nil
    }
}
