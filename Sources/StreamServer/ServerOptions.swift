import Foundation
import Observability
import OptionParsing
import WebSocketTransport

/// The effective settings of `stream-server`, checked and typed.
struct ServerSettings: Sendable {
    var transport = ServerConfiguration()
    var node = ProcessInfo.processInfo.hostName
    var shutdownTimeoutSeconds = 10
    var enableEcho = false
    var historySize = 100
    var logLevel = LogLevel.info
    var logFormat = LogFormat.text

    /// Every option `stream-server` takes, in `--help` order.
    static let specs: [OptionSpec] = [
        .value("host", "ADDR", default: "0.0.0.0", help: "Address to listen on."),
        .value("port", "PORT", default: "8080", help: "Port to listen on; 0 picks a free one."),
        .value("node", "NAME", help: "This node's name in welcome frames (default: the hostname)."),
        .value("tls-cert", "PEM", help: "TLS certificate; with --tls-key the server speaks wss:// and https://."),
        .value("tls-key", "PEM", help: "TLS private key."),
        .value(
            "max-message-bytes", "BYTES", default: "65536", help: "Largest message accepted; larger closes with 1009."),
        .value(
            "idle-timeout", "SECONDS", default: "60", help: "Close a peer silent this long; pings go out at half of it."
        ),
        .value(
            "shutdown-timeout", "SECONDS", default: "10", help: "On SIGTERM/SIGINT, how long to flush before exiting."),
        .flag("deflate", help: "Offer permessage-deflate (about 100 KB more per connection)."),
        .flag("enable-echo", help: "Serve /v1/echo, which returns every message unchanged (for conformance tests)."),
        .value(
            "slow-consumer", "POLICY", default: "conflate",
            help: "conflate (newest position per device wins) or disconnect (close with 4008) past --max-queued-bytes."),
        .value(
            "max-queued-bytes", "BYTES", default: "1048576", help: "Bytes a connection may have queued for sending."),
        .value("history-size", "N", default: "100", help: "Updates kept per device for resuming with since."),
        .value("log-level", "LEVEL", default: "info", help: "debug, info, warning or error."),
        .value("log-format", "FORMAT", default: "text", help: "text, or json for one JSON object per line."),
    ]

    /// Reads the settings from arguments and the environment (`LOCSTREAM_<NAME>`).
    init(arguments: [String], environment: [String: String]) throws(UsageError) {
        let options = try ParsedOptions(
            arguments: arguments, specs: Self.specs, environment: environment, environmentPrefix: "LOCSTREAM_")
        if let extra = options.positional.first { throw UsageError("unexpected argument '\(extra)' (see --help)") }
        transport.host = options.string("host") ?? "0.0.0.0"
        transport.port = try options.int("port", in: 0...65535)
        transport.maxMessageBytes = try options.int("max-message-bytes", in: 128...(16 << 20))
        transport.idleTimeoutSeconds = try options.int("idle-timeout", in: 2...3600)
        transport.deflate = options.flag("deflate")
        transport.tlsCertificatePath = options.string("tls-cert")
        transport.tlsKeyPath = options.string("tls-key")
        if (transport.tlsCertificatePath == nil) != (transport.tlsKeyPath == nil) {
            throw UsageError("--tls-cert and --tls-key go together")
        }
        for path in [transport.tlsCertificatePath, transport.tlsKeyPath].compactMap({ $0 })
        where !FileManager.default.isReadableFile(atPath: path) {
            throw UsageError("cannot read TLS file '\(path)'")
        }
        if let node = options.string("node") { self.node = node }
        shutdownTimeoutSeconds = try options.int("shutdown-timeout", in: 0...3600)
        enableEcho = options.flag("enable-echo")
        historySize = try options.int("history-size", in: 0...100_000)
        transport.slowConsumer = SlowConsumerPolicy(
            action: try options.choice("slow-consumer", as: SlowConsumerPolicy.Action.self),
            maxQueuedBytes: try options.int("max-queued-bytes", in: 4096...(1 << 30)))
        logLevel = try options.choice("log-level", as: LogLevel.self)
        logFormat = try options.choice("log-format", as: LogFormat.self)
        transport.logger = Logger(level: logLevel, format: logFormat, component: "transport")
    }

    /// The `--help` text.
    static var help: String {
        HelpText.render(
            usage: "stream-server [options]",
            summary: "locstream: streams live device locations over WebSocket (see docs/protocol.md).",
            specs: specs, environmentPrefix: "LOCSTREAM_")
    }
}
