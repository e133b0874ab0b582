import WebSocketTransport

/// What `stream-client bench` was asked to do: the scenario, its load, and where to report.
public struct BenchSettings: Sendable {
    /// Where and how to connect.
    public var connection: BenchEndpoint
    /// The load shape.
    public var scenario: BenchScenario
    /// Seconds of publishing (fanout, churn, slow), whole seconds so the timeline aligns.
    public var duration = 10
    /// The load: subscribers, devices, devices per subscriber, updates per second in total.
    public var subscribers = 100
    public var devices = 100
    public var perSubscriber = 1
    public var rate = 1000.0
    /// Publisher connections, and the period of their batches in milliseconds.
    public var publishers = 1
    public var cycleMs = 5
    /// Where publishers connect, when not to the subscribers' URL.
    public var publishURL: String?
    /// Bytes of `attrs` padding per location (0 for none).
    public var attrsBytes = 0
    /// Churn: how often each subscriber switches.
    public var switchMs = 1000
    /// Slow: subscribers that never read; and whether to run a baseline without them first.
    public var slow = 10
    public var baseline = false
    /// Capacity and storm: connections in total, per step, and the pause before sampling.
    public var connections = 1000
    public var step = 1000
    public var settleMs = 1000
    /// Handshakes in flight at most.
    public var parallel = 256
    /// The server's process, for CPU and memory figures.
    public var serverPID: Int32?
    /// lws client service threads, and loopback source addresses to spread connections over.
    public var clients = 1
    /// What waits on the bench's sockets.
    public var eventLoop = EventLoopKind.libev
    public var sourceAddresses = 4
    /// How long to wait for frames still in flight after publishing stops.
    public var drainSeconds = 3.0
    /// The most a whole run may take; past it the run stops and reports what it has.
    public var timeLimit = 600
    /// Device ids are `prefix` + 0…D-1.
    public var prefix = "bench-"
    /// The server's message limit: publish batches stay under it.
    public var maxMessageBytes = 65536
    /// Files the JSON report and the per-second timeline are appended to.
    public var out: String?
    public var timeline: String?
    /// Free text copied into the report (which server, which build).
    public var label: String?
    /// The scheduling policy of the bench's own threads.
    public var scheduling = ThreadScheduling.batch

    /// The least `attrsBytes` other than 0: the padding object's own bytes.
    public static let minimumAttrsBytes = PublishEncoder.minimumAttrsBytes

    /// Settings for `scenario` against `connection`, every other field at its default.
    public init(connection: BenchEndpoint, scenario: BenchScenario) {
        self.connection = connection
        self.scenario = scenario
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
