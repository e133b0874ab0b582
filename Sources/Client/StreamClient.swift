import BuildInfo
import LoadBench
import OptionParsing

/// The `stream-client` command line: picks the subcommand, parses its options and runs it.
enum StreamClient {
    /// Every option can also be set as `LOCSTREAM_CLIENT_<NAME>` (e.g. the token); flags win.
    static let environmentPrefix = "LOCSTREAM_CLIENT_"

    /// The line every `--help` ends with, about the environment.
    static let environmentNote =
        "\n\nEvery option can also be set as \(environmentPrefix)<NAME>, e.g. \(environmentPrefix)TOKEN=…; flags win."

    /// Runs the command line `arguments` (without the program name); returns the exit status.
    static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        guard let first = arguments.first else {
            Console.text(help, toStandardError: true)
            return ExitStatus.usage
        }
        if ["--help", "-h", "help"].contains(first) {
            Console.text(help)
            return ExitStatus.success
        }
        if first == "--version" {
            Console.text(BuildInfo.versionLine("stream-client"))
            return ExitStatus.success
        }
        guard let command = Subcommand(rawValue: first) else {
            let names = Subcommand.allCases.map(\.rawValue)
            let hint = Suggestion.hint(for: first, among: names)
            Console.error(
                "unknown subcommand '\(first)'\(hint) (expected one of \(names.joined(separator: ", ")); see --help)")
            return ExitStatus.usage
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            Console.text(command.help(arguments: rest))
            return ExitStatus.success
        }
        do {
            switch command {
            case .subscribe:
                let settings = try SubscribeSettings(arguments: rest, environment: environment)
                return await SubscribeCommand(settings: settings).run()
            case .publish:
                let settings = try PublishSettings(arguments: rest, environment: environment)
                return await PublishCommand(settings: settings).run()
            case .simulate:
                let settings = try SimulateSettings(arguments: rest, environment: environment)
                return await SimulateCommand(settings: settings).run()
            case .bench:
                let settings = try BenchSettings(arguments: rest, environment: environment)
                return await BenchCommand(settings: settings).run()
            case .token where rest.first == "inspect":
                return InspectCommand(
                    settings: try InspectSettings(arguments: Array(rest.dropFirst()), environment: environment)
                ).run()
            case .token:
                return TokenCommand(settings: try TokenSettings(arguments: rest, environment: environment)).run()
            }
        } catch {
            Console.error("\(command.rawValue): \(error)")
            return ExitStatus.usage
        }
    }

    /// The top-level `--help`.
    static var help: String {
        let width = (Subcommand.allCases.map(\.rawValue.count).max() ?? 0) + 4
        var lines = [
            "Usage: stream-client SUBCOMMAND URL [options]", "       stream-client token [inspect] [options]", "",
            "A command-line client for locstream: watch, publish and simulate live device locations.", "",
            "Subcommands:",
        ]
        for command in Subcommand.allCases {
            lines.append(
                "  " + command.rawValue.padding(toLength: width, withPad: " ", startingAt: 0) + command.summary)
        }
        lines += [
            "",
            "Options every subcommand but token takes:",
        ]
        let labels = ConnectionSettings.specs.map { "--\($0.name)" + ($0.valueName.map { " \($0)" } ?? "") }
        let labelWidth = (labels.map(\.count).max() ?? 0) + 2
        for (spec, label) in zip(ConnectionSettings.specs, labels) {
            lines.append("  " + label.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + spec.help)
        }
        lines += [
            "",
            "URL is ws://HOST:PORT/v1/stream or wss://…; a URL without a path gets /v1/stream.",
            "Every option can also be set as \(environmentPrefix)<NAME>, e.g. \(environmentPrefix)TOKEN=…; flags win.",
            "Exit status: 0 ok, 1 failure, 2 usage error. 'stream-client SUBCOMMAND --help' tells more.",
            "'stream-client --version' prints the version, git commit and Swift compiler.",
        ]
        return lines.joined(separator: "\n")
    }
}
