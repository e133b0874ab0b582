import Observability

/// How a `WebSocketServer` listens and treats its connections.
public struct ServerConfiguration: Sendable {
    /// The address to bind, e.g. `0.0.0.0` or `127.0.0.1`.
    public var host = "0.0.0.0"
    /// The port; 0 picks a free one, which `WebSocketServer.start()` returns.
    public var port = 8080
    /// PEM certificate and key paths; both set means the server speaks TLS (`wss://`).
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// A message larger than this closes the connection with 1009.
    public var maxMessageBytes = 65536
    /// A peer silent (no data, no pong) this long is closed; pings go out at half of it.
    public var idleTimeoutSeconds = 60
    /// Offer permessage-deflate (about 100 KB per connection that accepts it).
    public var deflate = false
    /// The WebSocket sub-protocol name; a client offering none gets it too.
    public var subprotocol = "locstream.v1"
    /// The most WebSocket connections at once; past it, upgrades get HTTP 503.
    public var maxConnections = 10_000
    /// The most WebSocket connections from one remote address; past it, 503.
    public var maxConnectionsPerAddress = 1000
    /// What a connection's outbox does when its peer reads too slowly.
    public var slowConsumer = SlowConsumerPolicy()
    /// The largest HTTP request body accepted; larger gets 413.
    public var maxHTTPBodyBytes = 1 << 20
    /// The most bytes one corked write carries.
    public var writeBatchBytes = 256 * 1024
    /// The event loop behind the service threads (`--event-loop`).
    public var eventLoop = EventLoopKind.libev
    /// Service threads, each with an lws context of its own (`--threads`); with more
    /// than one, `host` must be an IPv4 address.
    public var threads = 1
    /// Hears batch sizes and close codes, for metrics.
    public var observer: (any TransportObserver)?
    /// Where the transport logs.
    public var logger = Logger(component: "transport")

    /// True when both TLS paths are set.
    public var usesTLS: Bool { tlsCertificatePath != nil && tlsKeyPath != nil }

    /// The default configuration.
    public init() {}
}
