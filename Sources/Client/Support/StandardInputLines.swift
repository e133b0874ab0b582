import Foundation

/// The lines typed on standard input, as an `AsyncStream`.
///
/// A dedicated thread does the blocking reads, so no task of the cooperative pool ever
/// blocks on the terminal. The stream ends at end of input.
enum StandardInputLines {
    /// Starts reading standard input; every line arrives without its newline.
    static func stream() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let reader = Thread {
            while let line = readLine(strippingNewline: true) {
                continuation.yield(line)
            }
            continuation.finish()
        }
        reader.name = "stdin-reader"
        reader.start()
        return stream
    }
}
