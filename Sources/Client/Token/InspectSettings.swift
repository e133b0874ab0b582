import Auth
import OptionParsing

/// What `stream-client token inspect` was asked: one token, and the key to check it with.
struct InspectSettings: Sendable {
    /// The token as given; nil means "read it from standard input" (`-`).
    var token: String?
    /// The key to verify with, the server's; nil to decode only.
    var key: JWTKey?

    /// The subcommand's options.
    static let specs: [OptionSpec] = [
        .value(
            "secret-file", "FILE", help: "Check the HS256 signature with this secret (the server's --jwt-secret-file)."),
        .value("public-key", "PEM", help: "Check an RS256 or ES256 signature with this public key (--jwt-public-key)."),
    ]

    /// Parses `arguments` (after `token inspect`).
    init(arguments: [String], environment: [String: String] = [:]) throws(UsageError) {
        let options = try ParsedOptions(
            arguments: arguments, specs: Self.specs, environment: environment,
            environmentPrefix: StreamClient.environmentPrefix)
        guard let token = options.positional.first else {
            throw UsageError("the token is missing: stream-client token inspect TOKEN (or - to read it from stdin)")
        }
        if options.positional.count > 1 {
            throw UsageError("unexpected argument '\(options.positional[1])' (see --help)")
        }
        self.token = token == "-" ? nil : token
        key = try TokenKeyOption.load(options, from: ["secret-file", "public-key"])
    }

    /// The `--help` text.
    static var help: String {
        HelpText.render(
            usage: "stream-client token inspect TOKEN|- [--secret-file FILE | --public-key PEM]",
            summary: """
                Decodes a token (- reads it from stdin) and says who it is for, when it was issued and expires, and
                what it allows (devices to subscribe to, devices to publish for, areas). With the server's key it
                checks the signature too; without one it only decodes.
                Exit status: 0 when nothing checked refuses it; 1 when it is malformed, its claims are not what a
                server reads, its signature does not verify, or it has expired or is not valid yet; 2 on a usage error.
                """,
            specs: specs, environmentPrefix: nil) + StreamClient.environmentNote
    }
}
