import Dispatch
import Foundation

/// SIGTERM, SIGINT and SIGHUP, turned into one awaitable event, for the server's graceful
/// shutdown and the client's clean exit. SIGHUP ends the process like SIGTERM (a closed
/// terminal or a supervisor's hang-up must not kill it without a drain); nothing reloads.
public enum TerminationSignals {
    /// The signals caught, with their names.
    static let caught = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT"), (SIGHUP, "SIGHUP")]

    /// Catches the signals in a task of its own and returns that task once they are caught
    /// (from then on they no longer kill the process). The task ends with the name of the
    /// first signal, or nil when it is cancelled. Call it before the program does anything a
    /// signal must not cut short (listening, subscribing): a signal that comes earlier kills.
    public static func caughtInTask() async -> Task<String?, Never> {
        let (caught, isCaught) = AsyncStream.makeStream(of: Never.self)
        let task = Task { await wait(onceCaught: { isCaught.finish() }) }
        for await _ in caught {}
        return task
    }

    /// Waits until one of the caught signals arrives, then returns its name; `onceCaught` is
    /// called when they are caught. Cancelling the waiting task returns nil.
    private static func wait(onceCaught: @Sendable () -> Void) async -> String? {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let sources = caught.map { signalNumber, name in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { continuation.yield(name) }
            source.resume()
            return source
        }
        onceCaught()
        var iterator = stream.makeAsyncIterator()
        let name = await iterator.next()
        for source in sources { source.cancel() }
        return name
    }
}
