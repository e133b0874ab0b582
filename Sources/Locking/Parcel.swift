import Synchronization

/// A value that need not be `Sendable`, handed from one task to another and opened once.
///
/// `init` takes the value as `sending` and `open` gives it back as `sending`, so the
/// compiler checks that no one else keeps a reference to it: whoever opens the parcel
/// owns the value alone. The server parks a connection's message handler in one while
/// no task is answering its messages.
///
/// It is `Synchronization.Mutex` in both builds: the ThreadSanitizer build sees the
/// hand-off through the lock that publishes the parcel itself.
public final class Parcel<Value>: Sendable {
    private let slot: Mutex<Value?>

    /// Wraps `value`; the caller gives it up.
    public init(_ value: sending Value) {
        slot = Mutex(value)
    }

    /// The value, the first time; nil after that.
    public func open() -> sending Value? {
        slot.withLock { value -> sending Value? in
            let taken = value
            value = nil
            return taken
        }
    }
}
