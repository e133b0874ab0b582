#if LOCSTREAM_TSAN
    import Glibc

    /// A value guarded by a lock.
    ///
    /// This is the ThreadSanitizer build (`-DLOCSTREAM_TSAN`): `Synchronization.Mutex`
    /// is invisible to TSan on Linux, so a pthread mutex guards the value instead.
    ///
    /// `@unchecked Sendable` is safe: `value` is only touched between
    /// `pthread_mutex_lock` and `pthread_mutex_unlock` on the heap-allocated mutex,
    /// which never moves and lives as long as the object.
    public final class Locked<Value>: @unchecked Sendable {
        @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
        @usableFromInline var value: Value

        /// Wraps `value`.
        public init(_ value: Value) {
            self.value = value
            mutex = .allocate(capacity: 1)
            pthread_mutex_init(mutex, nil)
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }

        /// Runs `body` with exclusive access to the value.
        @inlinable
        public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure)
            -> Result
        {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value)
        }
    }
#else
    import Synchronization

    /// A value guarded by a lock: `Synchronization.Mutex` in a class, so it can be shared.
    ///
    /// `withLock` is `@inlinable` so that each caller's module specializes it: called as
    /// an unspecialized generic across modules, every call looked up the metadata of
    /// `Mutex<Value>` in the runtime's cache (2.6 % of the server's CPU at light load).
    public final class Locked<Value>: Sendable {
        @usableFromInline let mutex: Mutex<Value>

        /// Wraps `value`.
        public init(_ value: sending Value) {
            mutex = Mutex(value)
        }

        /// Runs `body` with exclusive access to the value.
        @inlinable
        public func withLock<Result: Sendable, Failure: Error>(
            _ body: (inout sending Value) throws(Failure) -> sending Result
        ) throws(Failure) -> Result {
            try mutex.withLock { (value) throws(Failure) -> Result in try body(&value) }
        }
    }
#endif
