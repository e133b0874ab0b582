import Foundation
import Observability
import OptionParsing
import WebSocketTransport

/// The options every subcommand shares: where to connect, how to authenticate and trust
/// TLS, how long connecting may take, and how chatty to be.
struct ConnectionSettings: Sendable, Equatable {
    /// The server's stream URL, normalized by `StreamURL`.
    var url: String
    /// A JWT sent as `Authorization: Bearer …` on the upgrade.
    var token: String?
    /// A PEM bundle trusted for `wss://`, beside the system's.
    var caFile: String?
    /// Accept any certificate.
    var insecure = false
    /// How long connecting may take (and, for `publish`, how long to wait for the reply).
    var timeout: Duration = .seconds(10)
    /// Log connection details on stderr.
    var verbose = false

    /// The common options, shown after each subcommand's own in `--help`.
    static let specs: [OptionSpec] = [
        .value("token", "JWT", secret: true, help: "Token sent as 'Authorization: Bearer JWT' on the upgrade."),
        .value("cacert", "FILE", help: "PEM file of CA certificates trusted for wss://, beside the system's."),
        .flag("insecure", help: "Accept any server certificate (self-signed, wrong name): tests only."),
        .value("timeout", "SECONDS", default: "10", help: "How long connecting may take."),
        .flag("verbose", help: "Log connection details on stderr."),
    ]

    /// Reads the common options and the URL operand.
    init(options: ParsedOptions) throws(UsageError) {
        url = try StreamURL.normalize(try options.singleURL())
        if let token = options.string("token") {
            guard !token.isEmpty, !token.contains(where: { $0.isNewline || $0 == "\0" }) else {
                throw UsageError("--token must be a non-empty token without line breaks")
            }
            self.token = token
        }
        if let caFile = options.string("cacert") {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw UsageError("--cacert: cannot read '\(caFile)'")
            }
            self.caFile = caFile
        }
        insecure = options.flag("insecure")
        let seconds = try options.number("timeout", in: 0.1...3600)
        timeout = .milliseconds(Int64((seconds * 1000).rounded()))
        verbose = options.flag("verbose")
    }

    /// A connection to `url` with these settings: the sub-protocol, the token, TLS trust.
    var connectOptions: ClientConnectOptions {
        var options = ClientConnectOptions()
        options.subprotocol = "locstream.v1"
        if let token { options.headers = [("Authorization", "Bearer \(token)")] }
        options.insecure = insecure
        options.timeout = timeout
        return options
    }

    /// The logger for the client's own diagnostics: debug lines with `--verbose`.
    var logger: Logger { Logger(level: verbose ? .debug : .warning, component: "client") }

    /// The logger handed to the transport (libwebsockets' own messages).
    var transportLogger: Logger { Logger(level: verbose ? .warning : .error, component: "transport") }
}
