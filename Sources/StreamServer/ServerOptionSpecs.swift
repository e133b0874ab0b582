import OptionParsing

/// Every option `stream-server` takes, in `--help` order.
enum ServerOptionSpecs {
    static let all: [OptionSpec] = listening + access + limits + streams + operations

    private static let access: [OptionSpec] = [
        .value(
            "auth", "MODE", default: "none", help: "none (anyone may do anything: local use only) or jwt (production)."),
        .value("jwt-secret", "SECRET", secret: true, help: "HS256 shared secret (32 bytes or more)."),
        .value("jwt-secret-file", "FILE", help: "File holding the HS256 secret (one trailing newline is ignored)."),
        .value("jwt-public-key", "PEM", help: "RSA (RS256) or P-256 (ES256) public key file."),
        .value("jwt-leeway", "SECONDS", default: "30", help: "Clock skew allowed on exp, nbf and iat."),
        .value(
            "auth-timeout", "SECONDS", default: "5", help: "Close (1008) a connection with no valid token this long."),
        .value("token-warning", "SECONDS", default: "30", help: "Send 'token expiring' this long before exp."),
    ]

    private static let listening: [OptionSpec] = [
        .value("config", "FILE", help: "A JSON object of option names and values; flags and LOCSTREAM_ variables win."),
        .value("host", "ADDR", default: "0.0.0.0", help: "Address to listen on."),
        .value("port", "PORT", default: "8080", help: "Port to listen on; 0 picks a free one."),
        .value("node", "NAME", help: "This node's name in welcome frames (default: the hostname)."),
        .value("tls-cert", "PEM", help: "TLS certificate; with --tls-key the server speaks wss:// and https://."),
        .value("tls-key", "PEM", help: "TLS private key."),
        .flag("deflate", help: "Offer permessage-deflate (about 100 KB more per connection)."),
        .value(
            "event-loop", "KIND", default: "libev",
            help: "libev (epoll through lws's libev plugin, libwebsockets-evlib-ev) or poll (lws's built-in poll())."),
        .value(
            "allowed-origins", "LIST", default: "*",
            help: "Comma-separated Origin values allowed to upgrade; * allows any (requests without Origin pass)."),
        .flag("enable-echo", help: "Serve /v1/echo, which returns every message unchanged (for conformance tests)."),
    ]

    private static let limits: [OptionSpec] = [
        .value(
            "max-message-bytes", "BYTES", default: "65536", help: "Largest message accepted; larger closes with 1009."),
        .value(
            "idle-timeout", "SECONDS", default: "60", help: "Close a peer silent this long; pings go out at half of it."
        ),
        .value("max-connections", "N", default: "10000", help: "WebSocket connections at once; past it, HTTP 503."),
        .value(
            "max-connections-per-ip", "N", default: "1000",
            help:
                "WebSocket connections per remote address; past it, HTTP 503. Raise it behind a proxy, whose address all clients share."
        ),
        .value("max-subscribe-devices", "N", default: "1000", help: "Devices in one subscribe; more is too_large."),
        .value(
            "max-area-km2", "KM2", default: "250000", help: "Largest area of one area subscribe; more is bad_request."),
        .value(
            "publish-rate", "PER_SECOND", default: "1000",
            help:
                "Locations one identity (token sub, or address without auth) may publish per second, WebSocket and HTTP together; past it rate_limited or 429."
        ),
        .value("publish-burst", "N", default: "2000", help: "Locations one identity may publish in a burst."),
        .value(
            "error-budget", "N", default: "20",
            help: "Bad requests a connection may send in a burst (refilling 1/s) before it is closed with 1008."),
        .value(
            "slow-consumer", "POLICY", default: "conflate",
            help:
                "conflate (newest position per device wins; past the limit the oldest are dropped, never a close) or disconnect (close with 4008) past --max-queued-bytes."
        ),
        .value(
            "max-queued-bytes", "BYTES", default: "1048576",
            help:
                "Bytes of updates a connection may have queued for sending; replies may use as much again, past that 4008."
        ),
    ]

    private static let streams: [OptionSpec] = [
        .value("history-size", "N", default: "100", help: "Updates kept per device for resuming with since."),
        .value(
            "max-devices", "N", default: "100000",
            help:
                "Devices tracked at once (with redis: by the whole deployment); a publish of new ones past it gets internal (HTTP 507), known ones keep updating."
        ),
        .value(
            "retention", "DURATION", default: "7d",
            help: "Forget a device silent this long (30s, 10m, 2h, 7d); embedded broker only, Redis keeps devices."),
        .value(
            "broker", "KIND", default: "local",
            help: "local (embedded, one node) or redis (several nodes share one stream through --redis-url)."),
        .value(
            "redis-url", "URL", default: "redis://127.0.0.1:6379/0", secret: true,
            help: "redis://[[user]:password@]host[:port][/db] for --broker redis."),
        .value(
            "redis-timeout-ms", "MS", default: "2000",
            help: "A Redis read or write slower than this fails (publishers get 'internal') and reconnects."),
    ]

    private static let operations: [OptionSpec] = [
        .value(
            "shutdown-timeout", "SECONDS", default: "10",
            help: "On SIGTERM, SIGINT or SIGHUP (each drains; none reloads), how long to flush before exiting."),
        .value("log-level", "LEVEL", default: "info", help: "debug, info, warning or error."),
        .value("log-format", "FORMAT", default: "text", help: "text, or json for one JSON object per line."),
        .flag("print-config", help: "Print the effective configuration (secrets masked) and exit."),
    ]
}
