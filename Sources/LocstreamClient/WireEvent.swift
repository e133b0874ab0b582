/// What a client's connections saw, for tools that show the wire (`stream-client subscribe`
/// prints the server's status frames and says why it reconnects); apps have the updates.
package enum WireEvent: Sendable {
    /// A frame from the server, as sent, with what it decoded to (nil for an op this client
    /// does not know), before the client acts on it.
    case received(frame: [UInt8], message: ServerMessage?)
    /// A connection ended, with the close code the server sent, if any.
    case closed(code: UInt16?)
    /// Opening a connection failed (or its token could not be had).
    case connectFailed(any Error)
}
