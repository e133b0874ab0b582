import LocstreamProtocol
import OptionParsing

/// What `stream-client simulate` was asked to do.
struct SimulateSettings: Sendable, Equatable {
    /// Where and how to connect.
    var connection: ConnectionSettings
    /// How many devices move.
    var deviceCount: Int
    /// Reports per device per second.
    var rate: Double
    /// Seconds to run; nil runs until SIGINT or SIGTERM.
    var duration: Double?
    /// The box the devices move in.
    var area: SimulationArea
    /// The seed; nil picks one at random (and prints it, so the run can be replayed).
    var seed: UInt64?
    /// Device ids are `prefix` + 1…N.
    var prefix: String
    /// Locations per `publish` message, at most.
    var batchSize: Int
    /// Bytes per `publish` message, at most: the server's message limit.
    var maxMessageBytes: Int

    /// The subcommand's own options, then the common ones.
    static let specs: [OptionSpec] =
        [
            .value("devices", "N", help: "How many devices to simulate (1 to 1000000)."),
            .value("rate", "HZ", help: "Reports per device per second (0.001 to 1000)."),
            .value("duration", "SECONDS", help: "Stop after this long (default: run until SIGINT/SIGTERM)."),
            .value(
                "area", "MINLON,MINLAT,MAXLON,MAXLAT", default: "13.08,52.33,13.76,52.68",
                help: "The box the devices move in (central Berlin)."),
            .value("seed", "N", help: "Random seed: the same seed replays the same routes (default: random)."),
            .value("prefix", "TEXT", default: "sim-", help: "Device ids are TEXT1, TEXT2, ..."),
            .value("batch", "N", default: "1000", help: "Locations per publish message, at most (1 to 1000)."),
            .value(
                "max-message-bytes", "BYTES", default: "65536",
                help: "Bytes per publish message, at most: the server's --max-message-bytes."),
        ] + ConnectionSettings.specs

    /// Parses `arguments` (after the subcommand's name).
    init(arguments: [String], environment: [String: String] = [:]) throws(UsageError) {
        let options = try ParsedOptions(
            arguments: arguments, specs: Self.specs, environment: environment,
            environmentPrefix: StreamClient.environmentPrefix)
        connection = try ConnectionSettings(options: options)
        deviceCount = try options.int("devices", in: 1...1_000_000)
        rate = try options.number("rate", in: 0.001...1000)
        duration = try options.optionalNumber("duration", in: 0.001...31_536_000)
        area = try Self.area(options.string("area") ?? "")
        if let text = options.string("seed") {
            guard let seed = UInt64(text) else {
                throw UsageError("--seed must be an integer from 0 to \(UInt64.max), not '\(text)'")
            }
            self.seed = seed
        }
        prefix = options.string("prefix") ?? "sim-"
        guard DeviceID.isValid(prefix + String(deviceCount)) else {
            throw UsageError(
                "--prefix must make valid device ids (\(DeviceID.rule)); '\(prefix)\(deviceCount)' is not one")
        }
        batchSize = try options.int("batch", in: 1...ProtocolLimits.maxLocationsPerPublish)
        maxMessageBytes = try options.int("max-message-bytes", in: 1024...(64 << 20))
    }

    private static func area(_ text: String) throws(UsageError) -> SimulationArea {
        let area: Area
        do {
            area = try TargetSyntax.bbox(text)
        } catch {
            throw UsageError("--area \(error.reason)")
        }
        guard case .bbox(let minLon, let minLat, let maxLon, let maxLat) = area, minLon < maxLon else {
            throw UsageError("--area must have minLon < maxLon (a simulation area cannot cross the antimeridian)")
        }
        return SimulationArea(minLon: minLon, minLat: minLat, maxLon: maxLon, maxLat: maxLat)
    }

    /// The `--help` text.
    static var help: String {
        HelpText.render(
            usage: "stream-client simulate URL --devices N --rate HZ [options]",
            summary: """
                Simulates N vehicles driving routes inside the area (legs between waypoints, limited acceleration
                and turn rate, slowing for turns, stops along the way, turning back at the edge) and publishes
                their positions in publish batches with ack:true, each device at HZ reports per second. Batches hold
                at most --batch locations and --max-message-bytes bytes.
                On exit it prints a summary: locations published and acknowledged, the achieved rate, errors.
                Exit status: 0 when every batch was acknowledged; 1 on a server error or a lost connection;
                2 on a usage error.
                """,
            specs: specs, environmentPrefix: nil) + StreamClient.environmentNote
    }
}
