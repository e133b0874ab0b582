import Foundation
import LocstreamProtocol
import OptionParsing
import WebSocketTransport

/// What `stream-client bench` was asked to do: the scenario, its load, and where to report.
struct BenchSettings: Sendable, Equatable {
    /// Where and how to connect.
    var connection: ConnectionSettings
    /// The load shape.
    var scenario: BenchScenario
    /// Seconds of publishing (fanout, churn, slow), whole seconds so the timeline aligns.
    var duration = 10
    /// The load: subscribers, devices, devices per subscriber, updates per second in total.
    var subscribers = 100
    var devices = 100
    var perSubscriber = 1
    var rate = 1000.0
    /// Publisher connections, and the period of their batches in milliseconds.
    var publishers = 1
    var cycleMs = 5
    /// Where publishers connect, when not to the subscribers' URL.
    var publishURL: String?
    /// Bytes of `attrs` padding per location (0 for none).
    var attrsBytes = 0
    /// Churn: how often each subscriber switches.
    var switchMs = 1000
    /// Slow: subscribers that never read; and whether to run a baseline without them first.
    var slow = 10
    var baseline = false
    /// Capacity and storm: connections in total, per step, and the pause before sampling.
    var connections = 1000
    var step = 1000
    var settleMs = 1000
    /// Handshakes in flight at most.
    var parallel = 256
    /// The server's process, for CPU and memory figures.
    var serverPID: Int32?
    /// lws client service threads, and loopback source addresses to spread connections over.
    var clients = 1
    /// What waits on the bench's sockets.
    var eventLoop = EventLoopKind.libev
    var sourceAddresses = 4
    /// How long to wait for frames still in flight after publishing stops.
    var drainSeconds = 3.0
    /// The most a whole run may take; past it the run stops and reports what it has.
    var timeLimit = 600
    /// Device ids are `prefix` + 0…D-1.
    var prefix = "bench-"
    /// The server's message limit: publish batches stay under it.
    var maxMessageBytes = 65536
    /// Files the JSON report and the per-second timeline are appended to.
    var out: String?
    var timeline: String?
    /// Free text copied into the report (which server, which build).
    var label: String?
    /// The scheduling policy of the bench's own threads.
    var scheduling = ThreadScheduling.batch

    /// Parses `arguments` (after the subcommand's name).
    init(arguments: [String], environment: [String: String] = [:]) throws(UsageError) {
        let options = try ParsedOptions(
            arguments: arguments, specs: Self.specs, environment: environment,
            environmentPrefix: StreamClient.environmentPrefix)
        connection = try ConnectionSettings(options: options)
        guard options.string("scenario") != nil else {
            throw UsageError(
                "--scenario is required: one of \(BenchScenario.allCases.map(\.rawValue).joined(separator: "|"))")
        }
        scenario = try options.choice("scenario", as: BenchScenario.self)
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
        guard attrsBytes == 0 || attrsBytes >= PublishEncoder.minimumAttrsBytes else {
            throw UsageError("--attrs-bytes must be 0 or from \(PublishEncoder.minimumAttrsBytes) to 512")
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

    /// The connections the scenario holds at once, at most.
    var connectionsNeeded: Int {
        switch scenario {
        case .fanout, .churn: publishers + subscribers
        case .slow: publishers + subscribers + slow
        case .capacity, .storm: connections
        }
    }

    /// The option that sets `connectionsNeeded`, for error messages.
    var connectionsOption: String {
        switch scenario {
        case .fanout, .churn, .slow: "--subscribers"
        case .capacity, .storm: "--connections"
        }
    }
}
