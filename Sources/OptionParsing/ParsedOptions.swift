import Foundation

/// Options read from the command line and the environment, flags winning.
///
/// Typed accessors check each value and throw a `UsageError` naming the option, so a
/// bad setting stops the program at start with a clear message.
public struct ParsedOptions: Sendable {
    /// Arguments that are not options (a URL, a subcommand's operands).
    public private(set) var positional: [String] = []
    private var values: [String: String] = [:]
    private var sources: [String: String] = [:]
    private let specs: [OptionSpec]
    private let environmentPrefix: String?

    /// Parses `arguments` against `specs`, then fills what is missing from `environment`
    /// variables named `prefix` + the option's name (e.g. `LOCSTREAM_PORT`).
    public init(
        arguments: [String], specs: [OptionSpec], environment: [String: String] = [:], environmentPrefix: String? = nil
    ) throws(UsageError) {
        self.specs = specs
        self.environmentPrefix = environmentPrefix
        var index = 0
        while index < arguments.count {
            let argument = try Self.longForm(of: arguments[index], specs: specs)
            index += 1
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positional.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = specs.first(where: { $0.name == name }) else {
                let hint = Suggestion.hint(for: "--" + name, among: specs.map { "--" + $0.name })
                throw UsageError("unknown option --\(name)\(hint) (see --help)")
            }
            if spec.valueName == nil {
                guard inline == nil else { throw UsageError("--\(name) takes no value") }
                values[name] = "true"
            } else if let inline {
                values[name] = inline
            } else {
                guard index < arguments.count else {
                    throw UsageError("--\(name) needs a value (\(spec.valueName ?? ""))")
                }
                values[name] = arguments[index]
                index += 1
            }
            sources[name] = "flag"
        }
        guard let environmentPrefix else { return }
        for spec in specs where values[spec.name] == nil {
            if let value = environment[spec.environmentName(prefix: environmentPrefix)] {
                values[spec.name] = spec.valueName == nil ? Self.switchValue(value) : value
                sources[spec.name] = "env"
            }
        }
    }

    /// Adds values from a configuration file, below flags and the environment.
    public mutating func fill(from file: [String: String], source: String) {
        for (name, value) in file where values[name] == nil {
            values[name] = value
            sources[name] = source
        }
    }

    /// True when the option was given at all.
    public func isSet(_ name: String) -> Bool { values[name] != nil }

    /// Where the option's value came from: `flag`, `env`, the configuration file's source
    /// name, or nil for its default.
    public func source(of name: String) -> String? { sources[name] }

    /// The raw value, or the default.
    public func string(_ name: String) -> String? {
        values[name] ?? specs.first { $0.name == name }?.defaultValue
    }

    /// A switch's value.
    public func flag(_ name: String) -> Bool { values[name] == "true" }

    /// An integer in `range`.
    public func int(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let text = string(name) else { throw UsageError("--\(name) is required") }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(
                "--\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// One of a fixed set of values.
    public func choice<T: RawRepresentable & CaseIterable>(_ name: String, as type: T.Type) throws(UsageError) -> T
    where T.RawValue == String {
        let text = string(name) ?? ""
        guard let value = T(rawValue: text) else {
            let allowed = T.allCases.map(\.rawValue).joined(separator: "|")
            throw UsageError("--\(name) must be one of \(allowed), not '\(text)'")
        }
        return value
    }

    /// Every option's effective value and where it came from, secrets masked.
    public func effective() -> [(name: String, value: String, source: String)] {
        specs.compactMap { spec in
            guard let value = string(spec.name) else { return nil }
            let shown = spec.isSecret && isSet(spec.name) ? "********" : value
            return (spec.name, shown, sources[spec.name] ?? "default")
        }
    }

    /// `error` naming the environment variable that set an option it is about, before the
    /// flag's name (`LOCSTREAM_PORT: --port must be …`), with a hint when the value is the
    /// address Kubernetes sets for a service; unchanged when no such option set it.
    public func naming(_ error: UsageError) -> UsageError {
        guard let environmentPrefix else { return error }
        for spec in specs where sources[spec.name] == "env" && Self.mentions(error.description, option: spec.name) {
            var text = "\(spec.environmentName(prefix: environmentPrefix)): \(error.description)"
            if let value = values[spec.name], EnvironmentCheck.isServiceAddress(value) {
                text +=
                    " (a Kubernetes service link: a service named like the prefix sets it; "
                    + "set enableServiceLinks: false in the pod spec)"
            }
            return UsageError(text)
        }
        return error
    }

    /// Whether `text` names the flag `--option` (not merely a longer flag that starts so).
    static func mentions(_ text: String, option: String) -> Bool {
        var rest = text[...]
        while let range = rest.range(of: "--" + option) {
            let next = rest[range.upperBound...].first
            if next.map({ !($0.isLetter || $0.isNumber || $0 == "-") }) ?? true { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }

    /// `argument` with a one-letter option (`-C`) spelled as its long form (`--count`).
    static func longForm(of argument: String, specs: [OptionSpec]) throws(UsageError) -> String {
        guard argument.count == 2, argument.first == "-", let letter = argument.last, letter.isLetter else {
            return argument
        }
        guard let spec = specs.first(where: { $0.short == letter }) else {
            throw UsageError("unknown option -\(letter) (see --help)")
        }
        return "--" + spec.name
    }

    private static func switchValue(_ text: String) -> String {
        ["1", "true", "yes", "on"].contains(text.lowercased()) ? "true" : "false"
    }
}
