/// Hears what the service thread does, for metrics. Called on the service thread:
/// implementations must be quick and must not block (an atomic add, say).
public protocol TransportObserver: Sendable {
    /// One write carried `frames` queued frames, `bytes` on the wire.
    func batchWritten(frames: Int, bytes: Int)
    /// WebSocket connection `id` from `remoteAddress` ended with `code`: the close code
    /// this side sent, else the peer's, else 1006 (no close frame).
    func connectionClosed(id: ConnectionID, remoteAddress: String, code: UInt16)
}
