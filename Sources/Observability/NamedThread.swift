import Foundation

/// Starts the process's own threads (the service loops, the store's writer and
/// checkpointer, the Redis links) under names that `top -H`, `perf` and
/// `/proc/PID/task/*/comm` show. Foundation's `Thread.name` does not reach the kernel on
/// Linux (every thread showed as `oot.default-qos`), so the thread writes its name to
/// `/proc/thread-self/comm` (the kernel keeps 15 bytes of it) before it runs its body.
public enum NamedThread {
    /// Starts `body` on a new thread called `name`.
    public static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            if let comm = FileHandle(forWritingAtPath: "/proc/thread-self/comm") {
                try? comm.write(contentsOf: Data(name.utf8))
                try? comm.close()
            }
            body()
        }
        thread.name = name
        thread.start()
    }
}
