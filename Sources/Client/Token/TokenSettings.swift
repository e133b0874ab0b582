import Auth
import Foundation
import OptionParsing

/// What `stream-client token` was asked to mint: an HS256 development token with the
/// rights a locstream server reads (`docs/protocol.md`, "Authenticating").
struct TokenSettings: Sendable {
    /// The secret to sign with (the server's `--jwt-secret-file`).
    var key: JWTKey
    /// The claims to sign: `sub`, `iat` now, `exp` after the time to live, and the rights.
    var claims: Claims

    /// The longest `--ttl`: ten years, for a development token.
    static let maxTTL = Duration.seconds(3650 * 86_400)

    /// The subcommand's options.
    static let specs: [OptionSpec] = [
        .value("secret-file", "FILE", help: "The HS256 secret, the server's --jwt-secret-file (32 bytes or more)."),
        .value("sub", "ID", help: "The client id (the 'sub' claim); the server names the connection by it."),
        .value("devices", "PATTERN,...", help: "Devices it may subscribe to: ids or globs such as veh-* ('*': all)."),
        .value("publish", "PATTERN,...", help: "Devices it may publish locations for, the same way."),
        .flag("areas", help: "Allow area subscriptions (--bbox, --near); they show only the --devices it may see."),
        .value("ttl", "DURATION", default: "1h", help: "How long it is valid: 30s, 10m, 2h, 7d."),
    ]

    /// Parses `arguments` (after `token`); `now` is the token's `iat`.
    init(arguments: [String], environment: [String: String] = [:], now: Date = Date()) throws(UsageError) {
        let options = try ParsedOptions(
            arguments: arguments, specs: Self.specs, environment: environment,
            environmentPrefix: StreamClient.environmentPrefix)
        if let extra = options.positional.first {
            let hint = Suggestion.hint(for: extra, among: ["inspect"])
            throw UsageError("unexpected argument '\(extra)'\(hint) (see --help)")
        }
        guard let key = try TokenKeyOption.load(options, from: ["secret-file"]) else {
            throw UsageError("--secret-file is required: the file the server reads with --jwt-secret-file")
        }
        self.key = key
        let subject = try options.required("sub")
        guard !subject.isEmpty, !subject.contains(where: \.isNewline) else {
            throw UsageError("--sub must be a non-empty client id without line breaks")
        }
        let issued = ExpiryMaths.unixSeconds(of: now)
        let ttl = try options.duration("ttl", in: .seconds(1)...Self.maxTTL)
        claims = Claims(
            subject: subject, expirySeconds: issued + ttl.components.seconds, issuedAtSeconds: issued,
            devicePatterns: try Self.patterns("devices", options), areas: options.flag("areas"),
            publishPatterns: try Self.patterns("publish", options))
    }

    /// The patterns of `--name`, none when it is not given.
    private static func patterns(_ name: String, _ options: ParsedOptions) throws(UsageError) -> [String] {
        guard let text = options.string(name) else { return [] }
        do {
            return try TokenPatterns.parse(text)
        } catch {
            throw UsageError("--\(name) \(error.reason)")
        }
    }

    /// The `--help` text.
    static var help: String {
        HelpText.render(
            usage: "stream-client token --secret-file FILE --sub ID [--devices PATTERN,...] [--publish PATTERN,...] "
                + "[--areas] [--ttl DURATION]",
            summary: """
                Mints an HS256 token for development and prints it on stdout, alone on one line, for --token:
                  stream-client subscribe URL --devices veh-1 --token "$(stream-client token --secret-file s --sub me --devices 'veh-*')"
                A right not given is not granted: without --devices, --publish and --areas the token allows nothing.
                'stream-client token inspect TOKEN' shows what a token allows and until when (see its --help).
                Exit status: 0 with the token printed; 2 on a usage error (a missing or short secret file).
                """,
            specs: specs, environmentPrefix: nil) + StreamClient.environmentNote
    }
}
