import CLibev
import CWebsockets

/// Which event loop waits on a server's sockets.
public enum EventLoopKind: String, Sendable, CaseIterable {
    /// lws's built-in `poll()`, which scans every socket on every wake-up.
    case poll
    /// libev on epoll, through lws's libev plugin (Debian `libwebsockets-evlib-ev`).
    case libev
}

/// A libev loop that a service thread owns and lends to lws as a foreign loop.
///
/// lws loads its libev plugin (`libwebsockets-evlib_ev.so`, from the library directory
/// it was built for) when the context has `LWS_SERVER_OPTION_LIBEV`. With a loop of its
/// own, `lws_service` would block in `ev_run(loop, 0)` and lws would install a SIGINT
/// watcher; with a foreign loop the service thread turns the loop itself, one
/// `EVRUN_ONCE` at a time, and checks its stop flag between turns as it does with poll.
/// `lws_cancel_service` wakes it through lws's event pipe, whose watcher is on this loop.
///
/// lws 4.1.6's libev plugin re-arms its timer with `ev_timer_set` on a watcher that may
/// still be active, so a timeout scheduled sooner than the armed one (a close
/// handshake's, a `lws_set_timeout`) waits for the old one unless some socket event
/// comes first. The loop therefore ticks every `tickSeconds`; on a tick the service
/// thread calls `lws_cancel_service`, whose pipe event makes lws run what is due.
///
/// The loop must outlive the context: free this object only after
/// `lws_context_destroy`, which with a foreign libev loop finishes synchronously and
/// leaves the loop as it found it.
final class LibevLoop {
    static let tickSeconds = 0.25
    private let handle: UnsafeMutablePointer<locstream_ev>
    /// The `foreign_loops` array lws reads at context creation (one per service thread).
    let foreignLoops: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    /// A new epoll loop, or nil when libev cannot make one.
    init?() {
        guard let handle = locstream_ev_new(Self.tickSeconds) else { return nil }
        self.handle = handle
        foreignLoops = .allocate(capacity: 1)
        foreignLoops.initialize(to: locstream_ev_loop(handle))
    }

    deinit {
        locstream_ev_free(handle)
        foreignLoops.deallocate()
    }

    /// Makes the context `info` describes run on this loop.
    func lend(to info: inout lws_context_creation_info) {
        info.options |= locstream_option_libev()
        info.foreign_loops = foreignLoops
    }

    /// Waits until something happens (a socket, lws's timer, `lws_cancel_service`, the
    /// tick) and handles it; on a tick, makes lws run its due timers.
    func turn(_ context: OpaquePointer) {
        if locstream_ev_turn(handle) != 0 { lws_cancel_service(context) }
    }
}
