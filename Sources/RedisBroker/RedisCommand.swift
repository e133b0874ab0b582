/// One Redis command as its arguments, binary-safe: `RedisCommand("GET", key)`.
struct RedisCommand: Sendable, Equatable {
    /// The command name and its arguments, as bytes.
    var arguments: [[UInt8]]

    /// A command from words (UTF-8).
    init(_ words: String...) {
        arguments = words.map { Array($0.utf8) }
    }

    /// A command from words (UTF-8), then `trailing` as they are.
    init(_ words: [String], trailing: [[UInt8]] = []) {
        arguments = words.map { Array($0.utf8) } + trailing
    }
}
