import Auth
import OptionParsing

/// Loads the key a `token` subcommand names: `--secret-file` (HS256), or for `inspect` also
/// `--public-key` (RS256/ES256), with the server's own loaders and rules (a secret of at
/// least 32 bytes, one trailing newline ignored).
enum TokenKeyOption {
    /// The key of whichever of `names` is set; nil when none is, and a usage error naming
    /// the option when more than one is, or when the file cannot be read or holds no key.
    static func load(_ options: ParsedOptions, from names: [String]) throws(UsageError) -> JWTKey? {
        let given = names.filter { options.isSet($0) }
        guard given.count <= 1 else {
            throw UsageError("--\(given[0]) and --\(given[1]) cannot be combined: give one key")
        }
        guard let name = given.first, let path = options.string(name) else { return nil }
        do {
            return name == "public-key" ? try JWTKey.publicKeyFile(atPath: path) : try JWTKey.secretFile(atPath: path)
        } catch {
            throw UsageError("--\(name): \(error.message)")
        }
    }
}
