import CWebsockets
import Foundation
import Locking
import Observability

/// Runs one lws context on a thread of its own, from creation to destruction.
///
/// Every lws call for the context happens on this thread; other threads reach it
/// only through `LoopMailbox`, whose wake-up is `lws_cancel_service`.
enum ServiceThread {
    /// Starts a thread that makes the loop and its context, reports the port (or the
    /// failure) through `started`, services the context until `stop` is set, then
    /// destroys it and fulfils `stopped`.
    static func run(
        name: String,
        waker: ContextWaker,
        stop: Locked<Bool>,
        started: OneShot<Result<Int, TransportError>>,
        stopped: OneShot<Void>,
        makeLoop: @escaping @Sendable () -> any ServiceLoop
    ) {
        NamedThread.start(name) {
            let loop = makeLoop()
            switch loop.createContext() {
            case .failure(let error):
                started.fulfil(.failure(error))
            case .success(let (context, port)):
                waker.attach(context)
                started.fulfil(.success(port))
                while !stop.withLock({ $0 }) {
                    if !loop.service(context) { break }
                    loop.serviceTurnEnded(context)
                }
                waker.detach()
                lws_context_destroy(context)
            }
            loop.stopExecutor()
            withExtendedLifetime(loop) { stopped.fulfil(()) }
        }
    }
}

/// Why the transport could not do what it was asked.
public enum TransportError: Error, Equatable, CustomStringConvertible {
    /// The lws context could not be created (bad TLS files, port in use, …).
    case contextCreationFailed(String)
    /// A client connection failed before it was established.
    case connectFailed(String)
    /// A URL the client cannot use.
    case invalidURL(String)
    /// A client's TLS handshake failed; the reason in words.
    case tlsFailed(String)
    /// The server answered a client's upgrade with this HTTP status instead of 101.
    case upgradeRefused(status: Int)

    public var description: String {
        switch self {
        case .contextCreationFailed(let why): "cannot start: \(why)"
        case .connectFailed(let why): "connect failed: \(why)"
        case .invalidURL(let url): "invalid WebSocket URL: \(url)"
        case .tlsFailed(let why): "TLS failed: \(why)"
        case .upgradeRefused(let status):
            "the server answered \(status) \(HTTPStatus.reasonPhrase(status)), not a WebSocket upgrade"
        }
    }
}
