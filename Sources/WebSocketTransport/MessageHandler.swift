/// What answers one server connection's messages, given by
/// `WebSocketServerDelegate.open` for each connection it accepts.
///
/// It is called one message at a time, in order, on the connection's service thread.
/// It need not be `Sendable`: while no message waits, no task runs for the connection,
/// and the handler waits in a `Parcel` until the next message starts a task that takes
/// it out (`MessageDrain`). So an idle connection costs no task.
public protocol MessageHandler: AnyObject {
    /// Answers one message; false closes the connection with 1000 once its queued
    /// frames are written, and `end` follows.
    func handle(_ message: InboundMessage) async -> Bool
    /// The connection is closing: called once, after the last `handle` has returned.
    func end()
    /// The priority its messages are answered at, read whenever the task answering them
    /// has emptied the queue. At `.high` or above they are urgent: on the service thread
    /// they run before frame delivery (`LoopMailbox`), so a subscriber's switch and its
    /// ack do not wait for a burst of frames. A handler whose messages are ingest answers
    /// below that, so that publishers never starve delivery.
    var answerPriority: TaskPriority { get }
}

extension MessageHandler {
    /// Urgent, unless the handler says otherwise.
    public var answerPriority: TaskPriority { .high }
}
