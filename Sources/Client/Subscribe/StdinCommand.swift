import LocstreamProtocol

/// A line typed on standard input while `subscribe` runs.
enum StdinCommand: Sendable, Equatable {
    /// Switch to a new target, under a new sub id.
    case subscribe(SubscriptionTarget)
    /// Stop the current subscription and stay connected.
    case unsubscribe
    /// Close the connection and exit.
    case quit
    /// Print the commands.
    case help

    /// Why a line was not understood, in words.
    struct Failure: Error, Equatable, CustomStringConvertible {
        /// The message shown on stderr.
        var description: String
    }

    /// The commands, for `help` and for mistakes.
    static let usage =
        "commands: sub ID,ID,... | bbox MINLON,MINLAT,MAXLON,MAXLAT | near LON,LAT,RADIUS_M | unsub | quit"

    /// Parses one line. Blank lines and lines starting with `#` are nil.
    static func parse(_ line: String) throws(Failure) -> StdinCommand? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
        let word = String(trimmed.prefix { !$0.isWhitespace })
        let argument = trimmed.dropFirst(word.count).trimmingCharacters(in: .whitespaces)
        switch word.lowercased() {
        case "sub", "devices":
            return .subscribe(.devices(try read(word, argument, example: "sub veh-2,veh-3", TargetSyntax.devices)))
        case "bbox":
            return .subscribe(.area(try read(word, argument, example: "bbox 13.3,52.4,13.5,52.6", TargetSyntax.bbox)))
        case "near":
            return .subscribe(.area(try read(word, argument, example: "near 13.4,52.5,2500", TargetSyntax.near)))
        case "unsub", "unsubscribe":
            return try bare(.unsubscribe, word, argument)
        case "quit", "exit":
            return try bare(.quit, word, argument)
        case "help", "?":
            return try bare(.help, word, argument)
        default:
            throw Failure(description: "unknown command '\(word)'; \(usage)")
        }
    }

    private static func read<Value>(
        _ word: String, _ argument: String, example: String, _ parse: (String) throws(TargetSyntax.Failure) -> Value
    ) throws(Failure) -> Value {
        guard !argument.isEmpty else { throw Failure(description: "\(word) needs an argument, e.g. '\(example)'") }
        do {
            return try parse(argument)
        } catch {
            throw Failure(description: "\(word) \(error.reason)")
        }
    }

    private static func bare(_ command: StdinCommand, _ word: String, _ argument: String) throws(Failure)
        -> StdinCommand
    {
        guard argument.isEmpty else { throw Failure(description: "\(word) takes no argument") }
        return command
    }
}
