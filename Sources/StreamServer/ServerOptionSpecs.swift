import OptionParsing
import StreamCore
import WebSocketTransport

/// Every option `stream-server` takes, in `--help` order.
///
/// A default shown here is read from where it is kept, so that each is written once: the
/// `ServerSettings` property the option sets (and, through it, `ServerConfiguration`,
/// `SessionLimits` and `DeviceLimits`), or `TokenAuthentication`. Only the options with no
/// such home (`auth`, `jwt-leeway`, `allowed-origins`, `broker`, `redis-url`) keep theirs here.
enum ServerOptionSpecs {
    static let all: [OptionSpec] = listening + access + limits + streams + map + operations

    private static let defaults = ServerSettings.defaults
    private static let transport = defaults.transport
    private static let session = defaults.limits
    private static let devices = defaults.devices

    private static let access: [OptionSpec] = [
        .value(
            "auth", "MODE", default: "none", help: "none (anyone may do anything: local use only) or jwt (production)."),
        .value("jwt-secret", "SECRET", secret: true, help: "HS256 shared secret (32 bytes or more)."),
        .value("jwt-secret-file", "FILE", help: "File holding the HS256 secret (one trailing newline is ignored)."),
        .value("jwt-public-key", "PEM", help: "RSA (RS256) or P-256 (ES256) public key file."),
        .value("jwt-leeway", "SECONDS", default: "30", help: "Clock skew allowed on exp, nbf and iat."),
        .value(
            "auth-timeout", "SECONDS", default: seconds(TokenAuthentication.defaultTimeout),
            help: "Close (1008) a connection with no valid token this long."),
        .value(
            "token-warning", "SECONDS", default: seconds(TokenAuthentication.defaultWarningLead),
            help: "Send 'token expiring' this long before exp."),
    ]

    private static let listening: [OptionSpec] = [
        .value("config", "FILE", help: "A JSON object of option names and values; flags and LOCSTREAM_ variables win."),
        .value("host", "ADDR", default: transport.host, help: "Address to listen on."),
        .value("port", "PORT", default: "\(transport.port)", help: "Port to listen on; 0 picks a free one."),
        .value("node", "NAME", help: "This node's name in welcome frames (default: the hostname)."),
        .value("tls-cert", "PEM", help: "TLS certificate; with --tls-key the server speaks wss:// and https://."),
        .value("tls-key", "PEM", help: "TLS private key."),
        .flag("deflate", help: "Offer permessage-deflate (about 100 KB more per connection)."),
        .value(
            "event-loop", "KIND", default: transport.eventLoop.rawValue,
            help: "libev (epoll through lws's libev plugin, libwebsockets-evlib-ev) or poll (lws's built-in poll())."),
        .value(
            "threads", "N", default: "\(ServerSettings.usableCores)",
            help:
                "Service threads, each with an lws context of its own (default: the cores this process may run on). With more than one, an accept thread deals connections out in turn, and --host must be an IPv4 address."
        ),
        .value(
            "allowed-origins", "LIST", default: "*",
            help: "Comma-separated Origin values allowed to upgrade; * allows any (requests without Origin pass)."),
        .flag("enable-echo", help: "Serve /v1/echo, which returns every message unchanged (for conformance tests)."),
    ]

    private static let limits: [OptionSpec] = [
        .value(
            "max-message-bytes", "BYTES", default: "\(transport.maxMessageBytes)",
            help: "Largest message accepted; larger closes with 1009."),
        .value(
            "idle-timeout", "SECONDS", default: "\(transport.idleTimeoutSeconds)",
            help: "Close a peer silent this long; pings go out at half of it."
        ),
        .value(
            "max-connections", "N", default: "\(transport.maxConnections)",
            help: "WebSocket connections at once; past it, HTTP 503."),
        .value(
            "max-connections-per-ip", "N", default: "\(transport.maxConnectionsPerAddress)",
            help:
                "WebSocket connections per remote address; past it, HTTP 503. Raise it behind a proxy, whose address all clients share."
        ),
        .value(
            "max-subscribe-devices", "N", default: "\(session.maxSubscribeDevices)",
            help: "Devices in one subscribe; more is too_large."),
        .value(
            "max-area-km2", "KM2", default: whole(session.maxAreaKm2),
            help: "Largest area of one area subscribe; more is bad_request."),
        .value(
            "max-cells", "N", default: "\(session.maxCells)",
            help:
                "Most cells one aggregated area subscribe may cover (the size of its cells frames); more is bad_request."
        ),
        .value(
            "offline-after", "SECONDS", default: "\(session.offlineAfter.components.seconds)",
            help:
                "A device silent this long is offline: its subscribers get presence online:false, then online:true before its next location."
        ),
        .value(
            "publish-rate", "PER_SECOND", default: whole(session.publishRate),
            help:
                "Locations one identity (token sub, or address without auth) may publish per second, WebSocket and HTTP together; past it rate_limited or 429."
        ),
        .value(
            "publish-burst", "N", default: whole(session.publishBurst),
            help: "Locations one identity may publish in a burst."),
        .value(
            "error-budget", "N", default: whole(session.errorBudget),
            help: "Bad requests a connection may send in a burst (refilling 1/s) before it is closed with 1008."),
        .value(
            "slow-consumer", "POLICY", default: transport.slowConsumer.action.rawValue,
            help:
                "conflate (newest position per device wins; past the limit the oldest are dropped, never a close) or disconnect (close with 4008) past --max-queued-bytes."
        ),
        .value(
            "max-queued-bytes", "BYTES", default: "\(transport.slowConsumer.maxQueuedBytes)",
            help:
                "Bytes of updates a connection may have queued for sending; replies may use as much again, past that 4008."
        ),
        .value(
            "snapshot-stall-timeout", "SECONDS", default: "\(session.snapshotStallTimeout.components.seconds)",
            help:
                "A snapshot larger than --max-queued-bytes goes out as fast as the viewer reads it; one that reads none of it for this long is closed with 4008."
        ),
    ]

    private static let streams: [OptionSpec] = [
        .value(
            "history-size", "N", default: "\(defaults.historySize)",
            help: "Updates kept per device for resuming with since."),
        .value(
            "store", "KIND", default: defaults.store.kind.rawValue,
            help:
                "sqlite (seqs, last positions and history survive a restart, under --data-dir) or memory (forgotten at exit: tests, throwaway runs). Embedded broker only; Redis is its own store."
        ),
        .value(
            "data-dir", "DIR", default: defaults.store.directory,
            help: "Where --store sqlite keeps its database (created if missing); one node per directory."),
        .value(
            "sync", "MODE", default: defaults.store.sync.rawValue,
            help:
                "normal (an acknowledged publish survives a crash of the process) or full (a power loss too; an fsync per commit)."
        ),
        .value(
            "store-cpus", "LIST",
            help:
                "Run the store's writer and checkpointer on these CPUs (0-3,6), off the cores that serve; default: wherever the server may run."
        ),
        .value(
            "max-devices", "N", default: "\(devices.maxDevices)",
            help:
                "Devices tracked at once (with redis: by the whole deployment); a publish of new ones past it gets internal (HTTP 507), known ones keep updating."
        ),
        .value(
            "retention", "DURATION", default: devices.retention.map(ParsedOptions.durationText),
            help: "Forget a device silent this long (30s, 10m, 2h, 7d); embedded broker only, Redis keeps devices."),
        .value(
            "broker", "KIND", default: "local",
            help: "local (embedded, one node) or redis (several nodes share one stream through --redis-url)."),
        .value(
            "redis-url", "URL", default: "redis://127.0.0.1:6379/0", secret: true,
            help: "redis://[[user]:password@]host[:port][/db] for --broker redis."),
        .value(
            "redis-timeout-ms", "MS", default: milliseconds(defaults.redisTimeout),
            help: "A Redis read or write slower than this fails (publishers get 'internal') and reconnects."),
    ]

    private static let map: [OptionSpec] = [
        .value(
            "map-tiles", "URL_TEMPLATE",
            help:
                "Tile URL template of the map page's base map, with {z}, {x}, {y} (and {s}), e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png; unset, the page draws an offline grid."
        ),
        .value("map-attribution", "TEXT", help: "The credit the map page shows for the tiles (HTML allowed)."),
        .value(
            "leaflet-dir", "DIR", default: defaults.map.leafletDirectory,
            help: "Where Leaflet is installed (Debian libjs-leaflet); the map page loads it from /javascript/leaflet/."),
    ]

    private static let operations: [OptionSpec] = [
        .value(
            "shutdown-timeout", "SECONDS", default: seconds(defaults.shutdownTimeout),
            help: "On SIGTERM, SIGINT or SIGHUP (each drains; none reloads), how long to flush before exiting."),
        .value("log-level", "LEVEL", default: defaults.logLevel.rawValue, help: "debug, info, warning or error."),
        .value(
            "log-format", "FORMAT", default: defaults.logFormat.rawValue,
            help: "text, or json for one JSON object per line."),
        .flag("print-config", help: "Print the effective configuration (secrets masked) and exit."),
    ]

    /// A whole number of seconds, as an option takes it.
    private static func seconds(_ duration: Duration) -> String { "\(duration.components.seconds)" }

    /// A whole number of milliseconds, as an option takes it.
    private static func milliseconds(_ duration: Duration) -> String { "\(Int64(duration / .milliseconds(1)))" }

    /// A limit kept as a `Double` but given as a whole number.
    private static func whole(_ value: Double) -> String { "\(Int(value))" }
}
