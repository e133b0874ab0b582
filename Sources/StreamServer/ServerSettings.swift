import Auth
import Foundation
import LocationStore
import Observability
import OptionParsing
import ProcessLifecycle
import RedisBroker
import StreamCore
import WebSocketTransport

/// The effective settings of `stream-server`, checked and typed. They come from flags,
/// then `LOCSTREAM_<NAME>` variables, then the `--config` file, then the defaults.
struct ServerSettings: Sendable {
    var transport = ServerConfiguration()
    var node = ProcessInfo.processInfo.hostName
    /// How long a drain may flush before the process exits (`--shutdown-timeout`).
    var shutdownTimeout = Duration.seconds(10)
    var enableEcho = false
    var allowedOrigins: Set<String>?
    var historySize = 100
    /// The embedded broker's store (`--store`, `--data-dir`, `--sync`).
    var store = StoreSettings()
    var devices = DeviceLimits()
    /// The embedded broker (nil) or Redis at this endpoint.
    var redis: RedisEndpoint?
    /// A Redis read or write slower than this fails (`--redis-timeout-ms`).
    var redisTimeout = Duration.milliseconds(2000)
    var limits = SessionLimits()
    var access = AccessPolicy.open
    var map = MapSettings()
    var logLevel = LogLevel.info
    var logFormat = LogFormat.text
    /// Every option's value and source, secrets masked: `--print-config`.
    var effective: [(name: String, value: String, source: String)] = []
    /// `--print-config` was given.
    var printOnly = false
    /// `LOCSTREAM_` variables that no option reads (not Kubernetes service links): warned at start.
    var unknownEnvironment: [EnvironmentCheck.Unknown] = []
    /// Store options given by flag or in the configuration file that the broker and store
    /// chosen do not use, with why: warned at start. Those from the environment are not,
    /// since an image sets them for every use (the Dockerfile's `LOCSTREAM_DATA_DIR`).
    var unusedStoreOptions: [(option: String, reason: String)] = []

    /// The prefix of the server's option variables.
    static let environmentPrefix = "LOCSTREAM_"
    /// The cores this process may run on (its CPU affinity, as `taskset` sets it): the
    /// default of `--threads`.
    static let usableCores = CPUAffinity.coreCount()
    /// The prefix of `stream-client`'s, which the server leaves alone.
    static let clientEnvironmentPrefix = "LOCSTREAM_CLIENT_"

    /// Every setting at its default: what `--help` and `--print-config` show as the default.
    static let defaults = ServerSettings()

    private init() {}

    /// Reads the settings from arguments, the environment and the config file. An error
    /// about a value from the environment names its variable.
    init(arguments: [String], environment: [String: String]) throws(UsageError) {
        var options = try ParsedOptions(
            arguments: arguments, specs: ServerOptionSpecs.all, environment: environment,
            environmentPrefix: Self.environmentPrefix)
        if let extra = options.positional.first { throw UsageError("unexpected argument '\(extra)' (see --help)") }
        do throws(UsageError) {
            if let path = options.string("config") {
                options.fill(from: try ConfigFile.read(path, specs: ServerOptionSpecs.all), source: "config")
            }
            try read(options)
        } catch {
            throw options.naming(error)
        }
        unknownEnvironment = EnvironmentCheck.unknownVariables(
            in: environment, prefix: Self.environmentPrefix, specs: ServerOptionSpecs.all,
            otherPrefixes: [Self.clientEnvironmentPrefix])
    }

    /// Reads every setting from `options`.
    private mutating func read(_ options: ParsedOptions) throws(UsageError) {
        try readListening(options)
        try readLimits(options)
        try readAccess(options)
        if let node = options.string("node") { self.node = node }
        historySize = try options.int("history-size", in: 0...100_000)
        devices = DeviceLimits(
            maxDevices: try options.int("max-devices", in: 1...100_000_000),
            retention: try options.duration("retention", in: .seconds(1)...(.seconds(3650 * 86_400))))
        try readBroker(options)
        try readStore(options)
        readMap(options)
        shutdownTimeout = .seconds(try options.int("shutdown-timeout", in: 0...3600))
        logLevel = try options.choice("log-level", as: LogLevel.self)
        logFormat = try options.choice("log-format", as: LogFormat.self)
        transport.logger = Logger(level: logLevel, format: logFormat, component: "transport")
        effective = options.effective()
        printOnly = options.flag("print-config")
    }

    private mutating func readBroker(_ options: ParsedOptions) throws(UsageError) {
        redisTimeout = .milliseconds(try options.int("redis-timeout-ms", in: 10...600_000))
        switch options.string("broker") ?? "local" {
        case "local":
            redis = nil
        case "redis":
            do {
                redis = try RedisEndpoint(url: options.string("redis-url") ?? "")
            } catch {
                throw UsageError("--redis-url \(error.description)")
            }
        case let other:
            throw UsageError("--broker must be local or redis (got '\(other)')")
        }
    }

    private mutating func readStore(_ options: ParsedOptions) throws(UsageError) {
        store.kind = try options.choice("store", as: StoreSettings.Kind.self)
        store.sync = try options.choice("sync", as: SyncMode.self)
        store.directory = options.string("data-dir") ?? store.directory
        if store.directory.isEmpty { throw UsageError("--data-dir must name a directory") }
        if let list = options.string("store-cpus") {
            guard let cpus = StoreCPUs(parsing: list) else {
                throw UsageError(
                    "--store-cpus must list CPUs as numbers and ranges, like 0-3,6, each below \(StoreCPUs.limit)"
                        + " (got '\(list)')")
            }
            store.cpus = cpus
        }
        let reason =
            redis != nil
            ? "the Redis broker keeps no store of its own"
            : store.kind == .memory ? "--store memory keeps nothing on disk" : nil
        guard let reason else { return }
        unusedStoreOptions = ["data-dir", "sync", "store-cpus"].filter {
            options.source(of: $0).map { $0 != "env" } ?? false
        }.map { ("--\($0)", reason) }
    }

    private mutating func readMap(_ options: ParsedOptions) {
        map.tiles = options.string("map-tiles").flatMap { $0.isEmpty ? nil : $0 }
        map.attribution = options.string("map-attribution") ?? map.attribution
        map.leafletDirectory = options.string("leaflet-dir") ?? map.leafletDirectory
    }

    private mutating func readListening(_ options: ParsedOptions) throws(UsageError) {
        transport.host = options.string("host") ?? transport.host
        transport.port = try options.int("port", in: 0...65535)
        transport.deflate = options.flag("deflate")
        transport.eventLoop = try options.choice("event-loop", as: EventLoopKind.self)
        transport.threads = try options.int("threads", in: 1...256)
        transport.tlsCertificatePath = options.string("tls-cert")
        transport.tlsKeyPath = options.string("tls-key")
        if (transport.tlsCertificatePath == nil) != (transport.tlsKeyPath == nil) {
            throw UsageError("--tls-cert and --tls-key go together")
        }
        for path in [transport.tlsCertificatePath, transport.tlsKeyPath].compactMap({ $0 })
        where !FileManager.default.isReadableFile(atPath: path) {
            throw UsageError("cannot read TLS file '\(path)'")
        }
        let origins = (options.string("allowed-origins") ?? "*").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        allowedOrigins = origins.contains("*") ? nil : Set(origins)
        enableEcho = options.flag("enable-echo")
    }

    private mutating func readLimits(_ options: ParsedOptions) throws(UsageError) {
        transport.maxMessageBytes = try options.int("max-message-bytes", in: 128...(16 << 20))
        transport.idleTimeoutSeconds = try options.int("idle-timeout", in: 2...3600)
        transport.maxConnections = try options.int("max-connections", in: 1...1_000_000)
        transport.maxConnectionsPerAddress = try options.int("max-connections-per-ip", in: 1...1_000_000)
        transport.slowConsumer = SlowConsumerPolicy(
            action: try options.choice("slow-consumer", as: SlowConsumerPolicy.Action.self),
            maxQueuedBytes: try options.int("max-queued-bytes", in: 4096...(1 << 30)))
        limits.snapshotStallTimeout = .seconds(try options.int("snapshot-stall-timeout", in: 1...3600))
        limits.maxSubscribeDevices = try options.int("max-subscribe-devices", in: 1...1000)
        limits.maxAreaKm2 = Double(try options.int("max-area-km2", in: 1...600_000_000))
        limits.maxCells = try options.int("max-cells", in: 1...100_000)
        limits.offlineAfter = .seconds(try options.int("offline-after", in: 1...86_400 * 365))
        limits.publishRate = Double(try options.int("publish-rate", in: 1...10_000_000))
        limits.publishBurst = Double(try options.int("publish-burst", in: 1...10_000_000))
        limits.errorBudget = Double(try options.int("error-budget", in: 1...1_000_000))
    }

    private mutating func readAccess(_ options: ParsedOptions) throws(UsageError) {
        guard try options.choice("auth", as: AuthMode.self) == .jwt else { return }
        let sources = ["jwt-secret", "jwt-secret-file", "jwt-public-key"].filter { options.isSet($0) }
        guard sources.count == 1, let source = sources.first else {
            throw UsageError("--auth jwt needs exactly one of --jwt-secret, --jwt-secret-file or --jwt-public-key")
        }
        let key: JWTKey
        do {
            switch source {
            case "jwt-secret": key = try JWTKey.secret(options.string(source) ?? "")
            case "jwt-secret-file": key = try JWTKey.secretFile(atPath: options.string(source) ?? "")
            default: key = try JWTKey.publicKeyFile(atPath: options.string(source) ?? "")
            }
        } catch {
            throw UsageError("--\(source): \(error.message)")
        }
        let leeway = Duration.seconds(try options.int("jwt-leeway", in: 0...3600))
        let verifier = JWTVerifier(key: key, leeway: leeway)
        access = .tokens(
            TokenAuthentication(
                timeout: .seconds(try options.int("auth-timeout", in: 1...3600)),
                warningLead: .seconds(try options.int("token-warning", in: 0...86400)), leeway: leeway,
                verify: { token, now throws(AuthError) in try verifier.verify(token: token, now: now) }))
    }

    /// `--auth`: who may connect.
    enum AuthMode: String, CaseIterable {
        case none, jwt
    }

    /// The `--help` text.
    static var help: String {
        HelpText.render(
            usage: "stream-server [options]",
            summary: "locstream: streams live device locations over WebSocket (see docs/protocol.md).",
            specs: ServerOptionSpecs.all, environmentPrefix: environmentPrefix, version: true)
    }

    /// The `--print-config` text: one `name = value  (source)` line per option.
    var printedConfiguration: String {
        let width = (effective.map(\.name.count).max() ?? 0) + 1
        return effective.map {
            "\($0.name.padding(toLength: width, withPad: " ", startingAt: 0))= \($0.value)  (\($0.source))"
        }
        .joined(separator: "\n")
    }
}
