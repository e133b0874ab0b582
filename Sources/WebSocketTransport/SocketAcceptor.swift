import Foundation
import Locking
import Observability

/// The listening socket of a server with several service threads, and the thread that
/// accepts on it, handing each new socket to the next service thread in turn.
///
/// Debian's lws 4.1.6 runs one service thread per context (`LWS_MAX_SMP` is 1) and sets
/// `SO_REUSEPORT` only among a context's own threads, so N contexts cannot share a port
/// by themselves: they listen on nothing, and each adopts what it is handed
/// (`ServerLoop`, `lws_adopt_socket_vhost`). Round robin spreads the connections evenly
/// whatever the peers' addresses and ports.
final class SocketAcceptor: Sendable {
    /// The port it listens on (the one picked, when asked for 0).
    let port: Int
    private let descriptor: Int32
    private let phase = Locked(Phase.listening)
    private let ended = OneShot<Void>()

    /// Where the acceptor is in its life.
    private enum Phase {
        /// Listening; no thread accepts yet.
        case listening
        /// The `lws-accept` thread accepts.
        case accepting
        /// Stopped, or stopping: nothing more is accepted.
        case stopping
    }

    private init(descriptor: Int32, port: Int) {
        self.descriptor = descriptor
        self.port = port
    }

    /// Listens on `host` (an IPv4 address) and `port` (0: a free one).
    static func listen(host: String, port: Int) -> Result<SocketAcceptor, TransportError> {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port)).bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            return .failure(
                .contextCreationFailed("--host \(host) is not an IPv4 address, which --threads above 1 needs"))
        }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(.contextCreationFailed("no socket: \(Self.errorText())")) }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(descriptor, SOMAXCONN) == 0 else {
            let why = Self.errorText()
            close(descriptor)
            return .failure(.contextCreationFailed("cannot listen on \(host):\(port) (\(why))"))
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return .success(SocketAcceptor(descriptor: descriptor, port: Int(UInt16(bigEndian: address.sin_port))))
    }

    /// Starts the `lws-accept` thread: every accepted socket, non-blocking and without
    /// Nagle's delay, goes to `handOff` with the index of the thread to serve it. Does
    /// nothing once started or stopped.
    func start(threads: Int, logger: Logger, handOff: @escaping @Sendable (Int32, Int) -> Void) {
        let starts = phase.withLock { phase in
            guard phase == .listening else { return false }
            phase = .accepting
            return true
        }
        guard starts else { return }
        NamedThread.start("lws-accept") { [self] in
            var next = 0
            while let accepted = acceptNext(logger: logger) {
                handOff(accepted, next)
                next = (next + 1) % threads
            }
            ended.fulfil(())
        }
    }

    /// Stops accepting, waits for the thread to end (if it was started), and closes the
    /// listening socket.
    func stop() async {
        let wasAccepting = phase.withLock { phase in
            defer { phase = .stopping }
            return phase == .accepting
        }
        if wasAccepting {
            // Wakes the blocked accept(), which then fails with EINVAL.
            shutdown(descriptor, Int32(SHUT_RDWR))
            _ = await ended.value()
        }
        close(descriptor)
    }

    /// The next accepted socket, or nil once stopping. Failures that a later accept may
    /// not have (a peer gone before it was accepted, no descriptor left for a moment)
    /// are waited out briefly, so they never spin the thread, and logged once every
    /// hundred in a row.
    private func acceptNext(logger: Logger) -> Int32? {
        var failures = 0
        while !isStopping {
            let accepted = accept(descriptor, nil, nil)
            if accepted >= 0 {
                _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
                _ = fcntl(accepted, F_SETFL, fcntl(accepted, F_GETFL) | O_NONBLOCK)
                var one: Int32 = 1
                _ = setsockopt(accepted, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return accepted
            }
            switch errno {
            case EINTR, ECONNABORTED, EAGAIN: continue
            case EINVAL where isStopping: return nil
            default:
                if failures % 100 == 0 {
                    logger.warning("accept failed", ["reason": Self.errorText(), "in_a_row": failures + 1])
                }
                failures += 1
                usleep(10_000)
            }
        }
        return nil
    }

    private var isStopping: Bool { phase.withLock { $0 == .stopping } }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
