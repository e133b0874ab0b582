import LoadBench
import LocstreamProtocol
import OptionParsing
import WebSocketTransport

extension BenchSettings {
    /// Parses `arguments` (after the subcommand's name).
    init(arguments: [String], environment: [String: String] = [:]) throws(UsageError) {
        let options = try ParsedOptions(
            arguments: arguments, specs: Self.specs, environment: environment,
            environmentPrefix: StreamClient.environmentPrefix)
        let connection = try ConnectionSettings(options: options)
        guard options.string("scenario") != nil else {
            throw UsageError(
                "--scenario is required: one of \(BenchScenario.allCases.map(\.rawValue).joined(separator: "|"))")
        }
        self.init(
            connection: BenchEndpoint(
                url: connection.url, caFile: connection.caFile, connectOptions: connection.connectOptions,
                transportLogger: connection.transportLogger),
            scenario: try options.choice("scenario", as: BenchScenario.self))
        duration = try options.int("duration", in: 1...3600)
        subscribers = try options.int("subscribers", in: 1...100_000)
        devices = try options.int("devices", in: 1...1_000_000)
        perSubscriber = try options.int("per-subscriber", in: 1...ProtocolLimits.maxDevicesPerSubscribe)
        guard perSubscriber <= devices else {
            throw UsageError("--per-subscriber (\(perSubscriber)) must not exceed --devices (\(devices))")
        }
        rate = try options.number("rate", in: 1...2_000_000)
        publishers = try options.int("publishers", in: 1...64)
        publishURL = try options.string("publish-url").map { (text) throws(UsageError) in
            try StreamURL.normalize(text)
        }
        cycleMs = try options.int("cycle-ms", in: 2...1000)
        attrsBytes = try options.int("attrs-bytes", in: 0...ProtocolLimits.maxAttrsBytes)
        guard attrsBytes == 0 || attrsBytes >= Self.minimumAttrsBytes else {
            throw UsageError("--attrs-bytes must be 0 or from \(Self.minimumAttrsBytes) to 512")
        }
        switchMs = try options.int("switch-ms", in: 10...600_000)
        slow = try options.int("slow", in: 1...100_000)
        baseline = options.flag("baseline")
        connections = try options.int("connections", in: 1...100_000)
        step = try options.int("step", in: 1...100_000)
        settleMs = try options.int("settle-ms", in: 0...60_000)
        parallel = try options.int("parallel", in: 1...10_000)
        serverPID = try Self.serverPID(options)
        clients = try options.int("clients", in: 1...16)
        eventLoop = try options.choice("event-loop", as: EventLoopKind.self)
        sourceAddresses = try options.int("source-addresses", in: 1...254)
        drainSeconds = try options.number("drain", in: 0...60)
        timeLimit = try options.int("time-limit", in: 1...86_400)
        prefix = options.string("prefix") ?? prefix
        guard DeviceID.isValid(prefix + String(devices)) else {
            throw UsageError("--prefix must make valid device ids (\(DeviceID.rule)); '\(prefix)\(devices)' is not one")
        }
        maxMessageBytes = try options.int("max-message-bytes", in: 1024...(64 << 20))
        out = options.string("out")
        timeline = options.string("timeline")
        label = options.string("label")
        scheduling = try options.choice("scheduling", as: ThreadScheduling.self)
    }

    private static func serverPID(_ options: ParsedOptions) throws(UsageError) -> Int32? {
        guard let text = options.string("server-pid") else { return nil }
        guard let pid = Int32(text), pid > 0 else {
            throw UsageError("--server-pid must be a process id, not '\(text)'")
        }
        guard ProcessSampler(pid: pid).isReadable else {
            throw UsageError("--server-pid: no readable process \(pid) in /proc")
        }
        return pid
    }

}
