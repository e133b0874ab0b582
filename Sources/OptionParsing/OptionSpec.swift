/// One command-line option: its flag, its environment variable, its help and default.
public struct OptionSpec: Sendable {
    /// The flag without dashes, e.g. `max-message-bytes`.
    public var name: String
    /// What the value is, shown in `--help`, e.g. `BYTES`; nil for a switch.
    public var valueName: String?
    /// One line of help.
    public var help: String
    /// The default, shown in `--help`; nil when there is none.
    public var defaultValue: String?
    /// Whether the value is secret (masked when printed).
    public var isSecret: Bool
    /// A one-letter alias, e.g. `C` for `-C`; nil when there is none.
    public var short: Character?

    /// An option taking a value.
    public static func value(
        _ name: String, _ valueName: String, default defaultValue: String? = nil, secret: Bool = false,
        short: Character? = nil, help: String
    ) -> OptionSpec {
        OptionSpec(
            name: name, valueName: valueName, help: help, defaultValue: defaultValue, isSecret: secret, short: short)
    }

    /// A switch: present means true.
    public static func flag(_ name: String, help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: nil, help: help, defaultValue: nil, isSecret: false, short: nil)
    }

    /// How `--help` shows it: `-C, --count N` or `--port PORT`.
    public var label: String {
        (short.map { "-\($0), " } ?? "") + "--\(name)" + (valueName.map { " \($0)" } ?? "")
    }

    /// The environment variable that can set it, e.g. `LOCSTREAM_MAX_MESSAGE_BYTES`.
    public func environmentName(prefix: String) -> String {
        prefix + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }
}

/// A usage error: the message says what is wrong; the program exits with status 2.
public struct UsageError: Error, CustomStringConvertible, Equatable {
    /// What was wrong, naming the option.
    public var description: String

    /// A usage error saying `description`.
    public init(_ description: String) { self.description = description }
}
