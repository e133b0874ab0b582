import LocstreamProtocol
import OptionParsing

/// What `stream-client subscribe` was asked to do.
struct SubscribeSettings: Sendable, Equatable {
    /// Where and how to connect.
    var connection: ConnectionSettings
    /// The first subscription's target.
    var target: SubscriptionTarget
    /// The first subscription's id; later switches derive theirs from it.
    var subID: String?
    /// Whether the server sends the last known positions first.
    var snapshot = true
    /// Print the raw frames instead of readable lines.
    var json = false
    /// Thinning: at most one frame per device per interval.
    var minIntervalMs: Int?
    /// Thinning: skip moves shorter than this.
    var minDistanceMeters: Double?
    /// Exit 0 after this many locations (`-C`).
    var count: Int?
    /// Exit 0 after this long, whatever arrived (`-W`).
    var exitAfter: Duration?

    /// The longest `--sub`: 128 characters minus room for the `-N` suffix of later switches.
    static let maxSubIDLength = 120

    /// The subcommand's own options, then the common ones.
    static let specs: [OptionSpec] =
        [
            .value("devices", "ID,ID,...", help: "Watch these devices (1 to 1000 ids)."),
            .value("bbox", "MINLON,MINLAT,MAXLON,MAXLAT", help: "Watch every device inside this box."),
            .value("near", "LON,LAT,RADIUS_M", help: "Watch every device within RADIUS_M metres of LON,LAT."),
            .value("sub", "ID", help: "The subscription id (default: sub-1); each switch takes a new one."),
            .flag("no-snapshot", help: "Skip the last known positions; only live updates."),
            .flag("json", help: "Print every frame the server sends, raw, one per line."),
            .value("min-interval-ms", "MS", help: "At most one frame per device per MS milliseconds."),
            .value("min-distance-m", "METRES", help: "Skip updates that moved less than METRES."),
            .value("count", "N", short: "C", help: "Exit 0 after N locations (as mosquitto_sub -C)."),
            .value(
                "exit-after", "SECONDS", short: "W",
                help: "Exit 0 after SECONDS, also when nothing arrived (as mosquitto_sub -W)."),
        ] + ConnectionSettings.specs

    /// Parses `arguments` (after the subcommand's name).
    init(arguments: [String], environment: [String: String] = [:]) throws(UsageError) {
        let options = try ParsedOptions(
            arguments: arguments, specs: Self.specs, environment: environment,
            environmentPrefix: StreamClient.environmentPrefix)
        connection = try ConnectionSettings(options: options)
        let given = ["devices", "bbox", "near"].filter { options.isSet($0) }
        guard given.count == 1, let name = given.first, let text = options.string(name) else {
            throw UsageError(
                given.isEmpty
                    ? "a target is missing: give one of --devices, --bbox or --near"
                    : "--\(given[0]) and --\(given[1]) cannot be combined: give one of --devices, --bbox or --near")
        }
        target = try Self.target(option: name, text: text)
        if let sub = options.string("sub") {
            guard (1...Self.maxSubIDLength).contains(sub.unicodeScalars.count) else {
                throw UsageError("--sub must be 1 to \(Self.maxSubIDLength) characters")
            }
            subID = sub
        }
        snapshot = !options.flag("no-snapshot")
        json = options.flag("json")
        minIntervalMs = try options.optionalInt("min-interval-ms", in: 0...86_400_000)
        minDistanceMeters = try options.optionalNumber("min-distance-m", in: 0...20_000_000)
        count = try options.optionalInt("count", in: 1...1_000_000_000)
        exitAfter = try options.optionalNumber("exit-after", in: 0.001...31_536_000).map {
            .milliseconds(Int64(($0 * 1000).rounded()))
        }
    }

    /// The target an option names, or a `UsageError` naming the option.
    static func target(option: String, text: String) throws(UsageError) -> SubscriptionTarget {
        do {
            switch option {
            case "devices": return .devices(try TargetSyntax.devices(text))
            case "bbox": return .area(try TargetSyntax.bbox(text))
            default: return .area(try TargetSyntax.near(text))
            }
        } catch {
            throw UsageError("--\(option) \(error.reason)")
        }
    }

    /// The `--help` text.
    static var help: String {
        HelpText.render(
            usage:
                "stream-client subscribe URL (--devices ID,ID,... | --bbox MINLON,MINLAT,MAXLON,MAXLAT | "
                + "--near LON,LAT,RADIUS_M) [options]",
            summary: """
                Subscribes and prints every location as a line: the fix time (local), the device, lat,lon,
                speed, heading, accuracy, seq, and the fix's age (now - ts). Status and server errors go to
                stderr. A URL without a path gets /v1/stream.

                While it runs, lines on stdin switch the subscription in place, each under a new sub id:
                  sub ID,ID,...                    watch these devices
                  bbox MINLON,MINLAT,MAXLON,MAXLAT watch a box
                  near LON,LAT,RADIUS_M            watch a circle
                  unsub                            stop watching (stay connected)
                  quit                             close and exit
                The end of stdin does not stop it (so it runs in the background too); quit, SIGINT or SIGTERM do.

                It runs on LocstreamClient, the Swift library: when the connection drops it reconnects with
                capped exponential backoff and jitter, and resubscribes with since = the last seq seen per
                device, so nothing is repeated; what history could no longer replay is named ("missed …").
                A switch ends the running subscription first; when the server refuses the new one, nothing
                runs until the next command. A token the server refuses (an error unauthorized, a first
                subscribe forbidden, or close 1008) stops it instead.
                Exit status: 0 after quit, SIGINT, SIGTERM, -C or -W; 1 when the first connection fails or the
                server refuses the token; 2 on a usage error.
                """,
            specs: specs, environmentPrefix: nil) + StreamClient.environmentNote
    }
}
