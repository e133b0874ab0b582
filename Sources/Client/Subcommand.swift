import LoadBench

/// The subcommands of `stream-client`, in the order `--help` lists them.
enum Subcommand: String, CaseIterable, Sendable {
    case subscribe
    case publish
    case simulate
    case bench
    case token

    /// One line for the top-level `--help`.
    var summary: String {
        switch self {
        case .subscribe: "Watch devices or an area and print their locations; switch with stdin commands."
        case .publish: "Publish one location and wait for the server's ack."
        case .simulate: "Drive N simulated vehicles around an area and publish their positions."
        case .bench: "Load the server (fanout, churn, capacity, slow, storm) and report what it delivered."
        case .token: "Mint a development token (HS256) for --token, or inspect one: its rights, expiry, signature."
        }
    }

    /// The subcommand's `--help`; `arguments` follow its name (`token inspect` has its own).
    func help(arguments: [String]) -> String {
        switch self {
        case .subscribe: SubscribeSettings.help
        case .publish: PublishSettings.help
        case .simulate: SimulateSettings.help
        case .bench: BenchSettings.help
        case .token: arguments.first == "inspect" ? InspectSettings.help : TokenSettings.help
        }
    }
}
