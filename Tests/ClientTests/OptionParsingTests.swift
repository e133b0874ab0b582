import Foundation
import LocstreamProtocol
import OptionParsing
import Testing

@testable import Client

/// The usage error `parse` throws, or nil when it parses.
private func usageError<T>(_ parse: () throws(UsageError) -> T) -> UsageError? {
    do {
        _ = try parse()
        return nil
    } catch {
        return error
    }
}

/// Records an issue unless `parse` refuses `arguments` with a usage error that names
/// `named`.
private func expectRefusal<T>(
    _ arguments: [String], naming named: String, sourceLocation: SourceLocation = #_sourceLocation,
    by parse: ([String]) throws(UsageError) -> T
) {
    let error = usageError { () throws(UsageError) in try parse(arguments) }
    #expect(error != nil, "\(arguments) should be refused", sourceLocation: sourceLocation)
    #expect(
        error?.description.contains(named) == true, "\(error?.description ?? "no error") names \(named)",
        sourceLocation: sourceLocation)
}

/// Command lines of every subcommand: what they mean, and how bad ones are refused.
@Suite("option parsing")
struct OptionParsingTests {
    private let url = "ws://127.0.0.1:8080/v1/stream"

    @Test("subscribe reads each kind of target and its switches")
    func subscribeTargets() throws {
        let devices = try SubscribeSettings(arguments: [url, "--devices", "veh-1,veh-2, veh-1"])
        #expect(devices.target == .devices(["veh-1", "veh-2"]))
        #expect(devices.snapshot && !devices.json && devices.subID == nil)
        let box = try SubscribeSettings(arguments: [url, "--bbox=13.3,52.4,13.5,52.6", "--no-snapshot", "--json"])
        #expect(box.target == .area(.bbox(minLon: 13.3, minLat: 52.4, maxLon: 13.5, maxLat: 52.6)))
        #expect(!box.snapshot && box.json)
        let circle = try SubscribeSettings(arguments: ["--near", "13.4,52.5,2500", url, "--sub", "map-1"])
        #expect(circle.target == .area(.circle(lon: 13.4, lat: 52.5, radiusMeters: 2500)))
        #expect(circle.subID == "map-1")
        let fiji = try SubscribeSettings(arguments: [url, "--bbox", "177,-19.2,-178,-15.7"])
        #expect(fiji.target == .area(.bbox(minLon: 177, minLat: -19.2, maxLon: -178, maxLat: -15.7)))
        let thinned = try SubscribeSettings(arguments: [
            url, "--devices", "a", "--min-interval-ms", "5000", "--min-distance-m", "25.5",
        ])
        #expect(thinned.minIntervalMs == 5000 && thinned.minDistanceMeters == 25.5)
    }

    @Test("subscribe -C and -W are the short forms of --count and --exit-after; an unknown letter is refused")
    func countAndExitAfter() throws {
        let short = try SubscribeSettings(arguments: [url, "--devices", "a", "-C", "5", "-W", "2.5"])
        #expect(short.count == 5 && short.exitAfter == .milliseconds(2500))
        let long = try SubscribeSettings(arguments: [url, "--devices", "a", "--count=5", "--exit-after", "2.5"])
        #expect(long == short)
        let plain = try SubscribeSettings(arguments: [url, "--devices", "a"])
        #expect(plain.count == nil && plain.exitAfter == nil)
        for (arguments, named) in [(["-C", "0"], "--count"), (["-Q"], "-Q")] {
            expectRefusal([url, "--devices", "a"] + arguments, naming: named) { arguments throws(UsageError) in
                try SubscribeSettings(arguments: arguments)
            }
        }
        #expect(SubscribeSettings.help.contains("-C, --count N"))
    }

    @Test("the common options: token header, TLS, timeout, and a URL without a path")
    func commonOptions() throws {
        let cafile = FileManager.default.temporaryDirectory.appendingPathComponent("ca-\(UUID().uuidString).pem")
        try Data("pem".utf8).write(to: cafile)
        defer { try? FileManager.default.removeItem(at: cafile) }
        let settings = try SubscribeSettings(arguments: [
            "wss://example.com:9443", "--devices", "a", "--token", "abc.def.ghi", "--cacert", cafile.path,
            "--insecure", "--timeout", "2.5", "--verbose",
        ])
        let connection = settings.connection
        #expect(connection.url == "wss://example.com:9443/v1/stream")
        #expect(connection.caFile == cafile.path && connection.insecure && connection.verbose)
        #expect(connection.timeout == .milliseconds(2500))
        let options = connection.connectOptions
        #expect(options.subprotocol == "locstream.v1")
        #expect(options.headers.map { "\($0.name): \($0.value)" } == ["Authorization: Bearer abc.def.ghi"])
        #expect(options.timeout == .milliseconds(2500) && options.insecure)
        let defaults = try SubscribeSettings(arguments: ["ws://h/?token=x", "--devices", "a"]).connection
        #expect(defaults.url == "ws://h/v1/stream?token=x")
        #expect(defaults.timeout == .seconds(10) && defaults.token == nil && !defaults.insecure)
        #expect(defaults.connectOptions.headers.isEmpty)
    }

    @Test("a duration option's default is written in the largest unit that divides it, and reads back")
    func durationText() throws {
        let cases: [(Duration, String)] = [
            (.seconds(7 * 86_400), "7d"), (.seconds(7200), "2h"), (.seconds(5400), "90m"), (.seconds(30), "30s"),
            (.seconds(61), "61s"), (.zero, "0s"),
        ]
        for (duration, text) in cases {
            #expect(ParsedOptions.durationText(duration) == text)
            let options = try ParsedOptions(
                arguments: ["--d", text], specs: [.value("d", "DURATION", help: "")], environment: [:],
                environmentPrefix: "X_")
            #expect(try options.duration("d", in: .zero...(.seconds(86_400 * 365))) == duration)
        }
    }

    @Test("the environment sets options, and flags win")
    func environment() throws {
        let settings = try SubscribeSettings(
            arguments: [url, "--devices", "a", "--timeout", "3"],
            environment: ["LOCSTREAM_CLIENT_TOKEN": "from-env", "LOCSTREAM_CLIENT_TIMEOUT": "7"])
        #expect(settings.connection.token == "from-env")
        #expect(settings.connection.timeout == .seconds(3))
    }

    @Test(
        "bad subscribe command lines name the option at fault",
        arguments: [
            ([] as [String], "URL"),
            (["ws://h"], "--devices"),
            (["ws://h", "--devices", "a", "--bbox", "1,2,3,4"], "--bbox"),
            (["ws://h", "--devices", "veh!1"], "--devices"),
            (["ws://h", "--devices", ","], "--devices"),
            (["ws://h", "--bbox", "1,2,3"], "--bbox"),
            (["ws://h", "--bbox", "13.3,52.6,13.5,52.4"], "--bbox"),
            (["ws://h", "--bbox", "13.3,52.4,13.3,52.6"], "--bbox"),
            (["ws://h", "--bbox", "200,52.4,13.5,52.6"], "--bbox"),
            (["ws://h", "--near", "13.4,52.5,0"], "--near"),
            (["ws://h", "--near", "13.4,95,10"], "--near"),
            (["ws://h", "--near", "13.4,nan,10"], "--near"),
            (["ws://h", "--devices", "a", "--sub", ""], "--sub"),
            (["ws://h", "--devices", "a", "--sub", String(repeating: "s", count: 121)], "--sub"),
            (["ws://h", "--devices", "a", "--timeout", "0"], "--timeout"),
            (["ws://h", "--devices", "a", "--timeout", "soon"], "--timeout"),
            (["ws://h", "--devices", "a", "--timeout"], "--timeout"),
            (["ws://h", "--devices", "a", "--cacert", "/nonexistent/ca.pem"], "--cacert"),
            (["ws://h", "--devices", "a", "--token", ""], "--token"),
            (["ws://h", "--devices", "a", "--min-interval-ms", "-1"], "--min-interval-ms"),
            (["ws://h", "--devices", "a", "--bogus"], "--bogus"),
            (["ws://h", "--devices", "a", "--json=yes"], "--json"),
            (["http://h", "--devices", "a"], "URL"),
            (["localhost:8080", "--devices", "a"], "URL"),
            (["ws://h", "ws://other", "--devices", "a"], "ws://other"),
        ])
    func badSubscribe(arguments: [String], named: String) {
        expectRefusal(arguments, naming: named) { arguments throws(UsageError) in
            try SubscribeSettings(arguments: arguments)
        }
    }

    @Test("publish builds the location, defaulting ts to now")
    func publish() throws {
        let now = Date(timeIntervalSince1970: 1_764_421_200.123)
        let settings = try PublishSettings(
            arguments: [
                url, "--device", "veh-17", "--lat", "52.520008", "--lon", "13.404954", "--speed", "8.3",
                "--heading", "271", "--acc", "4.5", "--attrs", #"{"driver":"Ana"}"#,
            ], now: now)
        #expect(
            settings.location
                == Location(
                    device: "veh-17", lat: 52.520008, lon: 13.404954, ts: 1_764_421_200_123, speed: 8.3, heading: 271,
                    acc: 4.5, attrs: .object(["driver": .string("Ana")])))
        let explicit = try PublishSettings(arguments: [url, "--device", "a", "--lat", "0", "--lon", "0", "--ts", "5"])
        #expect(explicit.location.ts == 5 && explicit.location.speed == nil && explicit.location.attrs == nil)
    }

    @Test(
        "bad publish command lines name the option at fault",
        arguments: [
            (["ws://h", "--lat", "1", "--lon", "1"], "--device"),
            (["ws://h", "--device", "a b", "--lat", "1", "--lon", "1"], "--device"),
            (["ws://h", "--device", "a", "--lon", "1"], "--lat"),
            (["ws://h", "--device", "a", "--lat", "91", "--lon", "1"], "--lat"),
            (["ws://h", "--device", "a", "--lat", "1", "--lon", "-180.5"], "--lon"),
            (["ws://h", "--device", "a", "--lat", "1", "--lon", "1", "--speed", "-1"], "--speed"),
            (["ws://h", "--device", "a", "--lat", "1", "--lon", "1", "--heading", "361"], "--heading"),
            (["ws://h", "--device", "a", "--lat", "1", "--lon", "1", "--acc", "inf"], "--acc"),
            (["ws://h", "--device", "a", "--lat", "1", "--lon", "1", "--ts", "1.5"], "--ts"),
            (["ws://h", "--device", "a", "--lat", "1", "--lon", "1", "--ts", "9007199254740993"], "--ts"),
            (["ws://h", "--device", "a", "--lat", "1", "--lon", "1", "--attrs", "[1]"], "--attrs"),
            (["ws://h", "--device", "a", "--lat", "1", "--lon", "1", "--attrs", "{"], "--attrs"),
            (
                [
                    "ws://h", "--device", "a", "--lat", "1", "--lon", "1", "--attrs",
                    #"{"x":""# + String(repeating: "y", count: 600) + #""}"#,
                ], "--attrs"
            ),
        ])
    func badPublish(arguments: [String], named: String) {
        expectRefusal(arguments, naming: named) { arguments throws(UsageError) in
            try PublishSettings(arguments: arguments)
        }
    }

    @Test("simulate reads its options, with Berlin and sim- by default")
    func simulate() throws {
        let settings = try SimulateSettings(arguments: [url, "--devices", "50", "--rate", "2", "--seed", "42"])
        #expect(settings.deviceCount == 50 && settings.rate == 2 && settings.seed == 42)
        #expect(settings.duration == nil && settings.area == .berlin && settings.prefix == "sim-")
        #expect(settings.batchSize == 1000)
        let custom = try SimulateSettings(arguments: [
            url, "--devices", "1", "--rate", "0.5", "--duration", "30", "--area", "2.25,48.8,2.42,48.9",
            "--prefix", "paris.", "--batch", "10",
        ])
        #expect(custom.area == SimulationArea(minLon: 2.25, minLat: 48.8, maxLon: 2.42, maxLat: 48.9))
        #expect(custom.duration == 30 && custom.prefix == "paris." && custom.batchSize == 10)
    }

    @Test(
        "bad simulate command lines name the option at fault",
        arguments: [
            (["ws://h", "--rate", "1"], "--devices"),
            (["ws://h", "--devices", "0", "--rate", "1"], "--devices"),
            (["ws://h", "--devices", "ten", "--rate", "1"], "--devices"),
            (["ws://h", "--devices", "1"], "--rate"),
            (["ws://h", "--devices", "1", "--rate", "0"], "--rate"),
            (["ws://h", "--devices", "1", "--rate", "1", "--duration", "-5"], "--duration"),
            (["ws://h", "--devices", "1", "--rate", "1", "--area", "1,2,3"], "--area"),
            (["ws://h", "--devices", "1", "--rate", "1", "--area", "179,0,-179,1"], "--area"),
            (["ws://h", "--devices", "1", "--rate", "1", "--seed", "-1"], "--seed"),
            (["ws://h", "--devices", "1", "--rate", "1", "--prefix", "sim "], "--prefix"),
            (["ws://h", "--devices", "1", "--rate", "1", "--prefix", String(repeating: "p", count: 128)], "--prefix"),
            (["ws://h", "--devices", "1", "--rate", "1", "--batch", "1001"], "--batch"),
        ])
    func badSimulate(arguments: [String], named: String) {
        expectRefusal(arguments, naming: named) { arguments throws(UsageError) in
            try SimulateSettings(arguments: arguments)
        }
    }

    @Test("the command line: help exits 0, unknown subcommands and bad options exit 2")
    func commandLine() async {
        #expect(await StreamClient.run(arguments: ["--help"], environment: [:]) == 0)
        #expect(await StreamClient.run(arguments: ["simulate", "--help"], environment: [:]) == 0)
        #expect(await StreamClient.run(arguments: [], environment: [:]) == 2)
        #expect(await StreamClient.run(arguments: ["bench", "ws://h"], environment: [:]) == 2)
        #expect(await StreamClient.run(arguments: ["publish", "ws://h", "--lat", "1"], environment: [:]) == 2)
        for command in Subcommand.allCases {
            #expect(StreamClient.help.contains(command.rawValue))
        }

        for spec in SubscribeSettings.specs { #expect(SubscribeSettings.help.contains("--\(spec.name)")) }
    }
}
