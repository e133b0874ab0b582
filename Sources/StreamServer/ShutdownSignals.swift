import Dispatch
import Foundation

/// SIGTERM and SIGINT, turned into one awaitable event.
enum ShutdownSignals {
    /// Waits until SIGTERM or SIGINT arrives; returns its name.
    static func wait() async -> String {
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let sources = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")].map { signalNumber, name in
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { continuation.yield(name) }
            source.resume()
            return source
        }
        var iterator = stream.makeAsyncIterator()
        let name = await iterator.next() ?? "SIGTERM"
        for source in sources { source.cancel() }
        return name
    }
}
