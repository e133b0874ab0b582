/// Hears what the service thread does, for metrics. Called on the service thread:
/// implementations must be quick and must not block (an atomic add, say).
public protocol TransportObserver: Sendable {
    /// One write carried `frames` queued frames, `bytes` on the wire.
    func batchWritten(frames: Int, bytes: Int)
    /// WebSocket connection `id` from `remoteAddress` ended with `code`: the close code
    /// this side sent, else the peer's, else 1006 (no close frame).
    func connectionClosed(id: ConnectionID, remoteAddress: String, code: UInt16)
    /// The transport refused an HTTP request or upgrade before the application saw it
    /// (`RequestRefusal.Reason`'s raw value); the refusal is already logged.
    func requestRefused(reason: String)
}
