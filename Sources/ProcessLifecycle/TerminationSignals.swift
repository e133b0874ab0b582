import Dispatch
import Foundation

/// SIGINT and SIGTERM, turned into one awaitable event, for the server's graceful
/// shutdown and the client's clean exit.
public enum TerminationSignals {
    /// Waits until SIGINT or SIGTERM arrives, then returns its name. Cancelling the waiting
    /// task returns nil. While anyone waits, the signals no longer kill the process.
    public static func wait() async -> String? {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let sources = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")].map { signalNumber, name in
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
