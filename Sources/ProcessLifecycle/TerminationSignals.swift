import Dispatch
import Foundation

/// SIGTERM, SIGINT and SIGHUP, turned into one awaitable event, for the server's graceful
/// shutdown and the client's clean exit. SIGHUP ends the process like SIGTERM (a closed
/// terminal or a supervisor's hang-up must not kill it without a drain); nothing reloads.
public enum TerminationSignals {
    /// The signals caught, with their names.
    static let caught = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT"), (SIGHUP, "SIGHUP")]

    /// Waits until one of the caught signals arrives, then returns its name. Cancelling the waiting
    /// task returns nil. While anyone waits, the signals no longer kill the process.
    public static func wait() async -> String? {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let sources = caught.map { signalNumber, name in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { continuation.yield(name) }
            source.resume()
            return source
        }
        var iterator = stream.makeAsyncIterator()
        let name = await iterator.next()
        for source in sources { source.cancel() }
        return name
    }
}
