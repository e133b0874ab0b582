import LocstreamProtocol

/// Why `Ingest.publish` stored nothing (or may not have): a refusal of the whole
/// publish, or a broker failure.
public enum PublishFailure: Error, Equatable {
    /// Refused whole, for a reason the client can act on (HTTP 507 at the device limit).
    case refused(PublishRefusal)
    /// The broker failed (`internal`; HTTP 503).
    case failed(ProtocolError)

    /// The error frame the WebSocket client gets.
    public var error: ProtocolError {
        switch self {
        case .refused(let refusal): refusal.error
        case .failed(let error): error
        }
    }
}
