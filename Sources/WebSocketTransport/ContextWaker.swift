import CWebsockets
import Locking

/// The one handle to an lws context that other threads may hold.
///
/// It exposes a single operation, `lws_cancel_service`, which lws documents as safe to
/// call from any thread: it wakes the service thread, which then runs
/// `LWS_CALLBACK_EVENT_WAIT_CANCELLED`. Every other lws call happens on the service
/// thread itself.
///
/// The context's address is read only under the lock, and the service thread clears
/// it under the same lock before it destroys the context, so no wake-up can reach a
/// freed context.
final class ContextWaker: Sendable {
    /// The context's address, 0 when there is none (kept as a number so the lock holds
    /// a `Sendable` value).
    private let address = Locked<UInt>(0)

    /// Called by the service thread once the context exists.
    func attach(_ context: OpaquePointer) {
        address.withLock { $0 = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(context))) }
    }

    /// Called by the service thread before `lws_context_destroy`.
    func detach() {
        address.withLock { $0 = 0 }
    }

    /// Wakes the service thread; does nothing once the context is gone.
    func wake() {
        address.withLock { address in
            if let context = OpaquePointer(bitPattern: address) { lws_cancel_service(context) }
        }
    }
}
