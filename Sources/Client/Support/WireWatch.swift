import Locking
import LocstreamClient
import WebSocketTransport

/// What the library's connections went through, as far as `stream-client` reports it: whether
/// one ever opened, and the last trouble (a close, a failed connect), so that a command can
/// say why it reconnects, or stop when reconnecting cannot help.
final class WireWatch: Sendable {
    /// The last thing that went wrong with a connection.
    enum Trouble: Sendable {
        /// A connection ended, with the server's close code if it sent one.
        case closed(UInt16?)
        /// A connect failed.
        case connectFailed(any Error)

        /// In words, with what to do about it: `connection lost (close 1001: going away…)`.
        var description: String {
            switch self {
            case .closed(let code): "connection lost" + CloseText.suffix(code)
            case .connectFailed(let error): "reconnect failed: " + Self.explain(error)
            }
        }

        /// `error` in words, with the option that helps (`--cacert`, the path), if any.
        static func explain(_ error: any Error) -> String {
            "\(error)" + ((error as? TransportError)?.advice ?? "")
        }
    }

    private let state = Locked<(connected: Bool, trouble: Trouble?)>((false, nil))

    /// Nothing seen yet.
    init() {}

    /// Notes `event` (the client's observer calls this).
    func note(_ event: WireEvent) {
        state.withLock { state in
            switch event {
            case .received: state.connected = true
            case .closed(let code): state.trouble = .closed(code)
            case .connectFailed(let error): state.trouble = .connectFailed(error)
            }
        }
    }

    /// Whether a connection has ever opened (a frame came).
    var everConnected: Bool { state.withLock { $0.connected } }

    /// The last trouble, if any.
    var trouble: Trouble? { state.withLock { $0.trouble } }
}
