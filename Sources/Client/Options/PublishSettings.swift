import Foundation
import LocstreamProtocol
import OptionParsing

/// What `stream-client publish` was asked to do: one location, checked by PROTOCOL.md's rules.
struct PublishSettings: Sendable, Equatable {
    /// Where and how to connect.
    var connection: ConnectionSettings
    /// The location to publish (`seq` stays 0: the server assigns it).
    var location: Location

    /// The subcommand's own options, then the common ones.
    static let specs: [OptionSpec] =
        [
            .value("device", "ID", help: "The device id (1 to 128 characters of A-Z a-z 0-9 . _ : -)."),
            .value("lat", "DEGREES", help: "Latitude, -90 to 90."),
            .value("lon", "DEGREES", help: "Longitude, -180 to 180."),
            .value("speed", "M/S", help: "Speed in metres per second, 0 or more."),
            .value("heading", "DEGREES", help: "Heading, 0 to 360."),
            .value("acc", "METRES", help: "Accuracy radius in metres, 0 or more."),
            .value("ts", "MS", help: "Fix time in milliseconds since the Unix epoch (default: now)."),
            .value("attrs", "JSON", help: "Attributes: a JSON object of at most 512 bytes."),
        ] + ConnectionSettings.specs

    /// Parses `arguments` (after the subcommand's name); `now` is the default `ts`.
    init(arguments: [String], environment: [String: String] = [:], now: Date = Date()) throws(UsageError) {
        let options = try ParsedOptions(
            arguments: arguments, specs: Self.specs, environment: environment,
            environmentPrefix: StreamClient.environmentPrefix)
        connection = try ConnectionSettings(options: options)
        let device = try options.required("device")
        guard DeviceID.isValid(device) else {
            throw UsageError("--device must be a device id: \(DeviceID.rule); not '\(device)'")
        }
        let ts =
            try options.optionalInt("ts", in: 0...Int(ProtocolLimits.maxTimestamp)).map(Int64.init)
            ?? Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        location = Location(
            device: device,
            lat: try options.number("lat", in: -90...90),
            lon: try options.number("lon", in: -180...180),
            ts: ts,
            speed: try options.optionalNumber("speed", in: 0...Double.greatestFiniteMagnitude),
            heading: try options.optionalNumber("heading", in: 0...360),
            acc: try options.optionalNumber("acc", in: 0...Double.greatestFiniteMagnitude),
            attrs: try options.string("attrs").map(Self.attributes))
    }

    private static func attributes(_ text: String) throws(UsageError) -> JSONValue {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: Array(text.utf8))
        } catch {
            throw UsageError("--attrs must be a JSON object: \(error.message)")
        }
        guard case .object = value else {
            throw UsageError("--attrs must be a JSON object, such as {\"driver\":\"Ana\"}")
        }
        let size = value.encoded().count
        guard size <= ProtocolLimits.maxAttrsBytes else {
            throw UsageError(
                "--attrs is \(size) bytes as compact JSON; at most \(ProtocolLimits.maxAttrsBytes) are allowed")
        }
        return value
    }

    /// The `--help` text.
    static var help: String {
        HelpText.render(
            usage: "stream-client publish URL --device ID --lat DEGREES --lon DEGREES [options]",
            summary: """
                Publishes one location with ack:true and waits for the server's answer.
                Exit status: 0 when the server answers 'published'; 1 on an error frame, a failed connection or
                no answer within --timeout; 2 on a usage error.
                """,
            specs: specs, environmentPrefix: nil) + StreamClient.environmentNote
    }
}
