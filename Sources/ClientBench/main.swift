import Foundation

// client-bench: the client library's figures, for deploy/loadtest/client-figures.sh, which
// starts the server and the load. Each run prints one JSON line.
//
//   client-bench receive URL DEVICES PREFIX library|raw|raw-batch SECONDS
//       One consumer of PREFIX0…PREFIX(DEVICES-1) (live updates, no snapshot): location
//       elements per second over SECONDS (after a second's warm-up from the first one), and
//       per CPU-second of this process. `library` iterates a LocstreamClient sequence on the
//       lws transport; `raw` reads the connection with the bench's frame scanner, as
//       `stream-client bench`'s subscribers do; `raw-batch` the same with the connection's
//       messages taken a batch per wake-up (`InboundMessages.Iterator.nextBatch`), as the
//       library's reader takes them: the transport's floor.
//   client-bench snapshots URL DEVICES library|raw|raw-batch SECONDS
//       Publishes DEVICES devices (at most 1,000,000) into an area nobody else publishes to
//       (`StoredArea`), then the same receivers subscribe to that area with a snapshot again
//       and again, each time the whole snapshot has arrived (`library`: a new sequence, which
//       the client turns into a switch on the same connection): elements per second and per
//       CPU-second, with no publishing load on the server.
//   client-bench idle URL SEQUENCES
//       The resident memory SEQUENCES idle sequences add (each on its own connection,
//       watching a device nobody publishes), per sequence.

let arguments = Array(CommandLine.arguments.dropFirst())
let usage =
    """
    usage: client-bench receive URL DEVICES PREFIX library|raw|raw-batch SECONDS
           client-bench snapshots URL DEVICES library|raw|raw-batch SECONDS
           client-bench idle URL SEQUENCES
    """

do {
    switch (arguments.first, arguments.count) {
    case ("receive", 6):
        guard let devices = Int(arguments[2]), (1...1000).contains(devices),
            let receiver = ReceiveFigure.Receiver(rawValue: arguments[4]), let seconds = Double(arguments[5]),
            seconds > 0
        else { throw BenchUsage(usage) }
        let figure = ReceiveFigure(
            url: arguments[1], source: .live(devices: (0..<devices).map { arguments[3] + String($0) }),
            receiver: receiver, seconds: seconds)
        print(try await figure.run())
    case ("snapshots", 5):
        guard let devices = Int(arguments[2]), (1...1_000_000).contains(devices),
            let receiver = ReceiveFigure.Receiver(rawValue: arguments[3]), let seconds = Double(arguments[4]),
            seconds > 0
        else { throw BenchUsage(usage) }
        try await StoredArea(url: arguments[1], devices: devices).fill()
        let figure = ReceiveFigure(
            url: arguments[1], source: .snapshots(StoredArea.area, devices: devices), receiver: receiver,
            seconds: seconds)
        print(try await figure.run())
    case ("idle", 3):
        guard let sequences = Int(arguments[2]), sequences > 0 else { throw BenchUsage(usage) }
        print(try await IdleSequenceFigure(url: arguments[1], sequences: sequences).run())
    default:
        throw BenchUsage(usage)
    }
} catch {
    FileHandle.standardError.write(Data("client-bench: \(error)\n".utf8))
    exit(error is BenchUsage ? 2 : 1)
}

/// A command line `client-bench` does not understand.
struct BenchUsage: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A measurement that could not be taken.
struct FigureFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
