import Auth

/// `stream-client token`: prints a signed development token on stdout.
struct TokenCommand {
    /// What to mint.
    var settings: TokenSettings

    /// Signs the claims and reads the token back as a server would (so that one it would
    /// refuse, such as one of too many patterns, is never printed); returns the exit status.
    func run() -> Int32 {
        let token: String
        do {
            token = try settings.key.sign(settings.claims)
        } catch {
            Console.error("token: \(error.message)")
            return ExitStatus.failure
        }
        do {
            _ = try JWTVerifier(key: settings.key).signedClaims(token: token)
        } catch {
            Console.error("token: a server would refuse this token: \(error.message)")
            return ExitStatus.usage
        }
        let claims = settings.claims
        if claims.devicePatterns.isEmpty, claims.publishPatterns.isEmpty, !claims.areas {
            Console.error("token: warning: this token allows nothing; give --devices, --publish or --areas")
        }
        Console.out(token)
        return ExitStatus.success
    }
}
