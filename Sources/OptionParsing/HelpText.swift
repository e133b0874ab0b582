import Foundation

/// Renders `--help`: a usage line, a summary, then one line per option.
public enum HelpText {
    /// The help for a command; `version` adds the line of a `--version` flag.
    public static func render(
        usage: String, summary: String, specs: [OptionSpec], environmentPrefix: String?, version: Bool = false
    ) -> String {
        var lines = ["Usage: \(usage)", "", summary, "", "Options:"]
        let labels = specs.map { "  " + $0.label }
        let width = (labels.map(\.count).max() ?? 0) + 2
        for (spec, label) in zip(specs, labels) {
            var line = label.padding(toLength: width, withPad: " ", startingAt: 0) + spec.help
            if let value = spec.defaultValue { line += " (default: \(value))" }
            lines.append(line)
        }
        lines.append("  --help".padding(toLength: width, withPad: " ", startingAt: 0) + "Show this help.")
        if version {
            lines.append(
                "  --version".padding(toLength: width, withPad: " ", startingAt: 0)
                    + "Print the version, git commit and Swift compiler, and exit.")
        }
        if let environmentPrefix {
            lines += [
                "",
                "Every option can also be set as \(environmentPrefix)<NAME>, e.g. \(environmentPrefix)PORT=9000; flags win.",
            ]
        }
        return lines.joined(separator: "\n")
    }
}
