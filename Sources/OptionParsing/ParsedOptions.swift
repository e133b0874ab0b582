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

    /// Parses `arguments` against `specs`, then fills what is missing from `environment`
    /// variables named `prefix` + the option's name (e.g. `LOCSTREAM_PORT`).
    public init(
        arguments: [String], specs: [OptionSpec], environment: [String: String] = [:], environmentPrefix: String? = nil
    ) throws(UsageError) {
        self.specs = specs
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
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
                throw UsageError("unknown option --\(name) (see --help)")
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

    private static func switchValue(_ text: String) -> String {
        ["1", "true", "yes", "on"].contains(text.lowercased()) ? "true" : "false"
    }
}
