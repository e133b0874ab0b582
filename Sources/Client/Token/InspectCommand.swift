import Auth
import Foundation

/// `stream-client token inspect`: prints a `TokenReport`.
struct InspectCommand {
    /// The token and the key.
    var settings: InspectSettings

    /// The most read from standard input: far more than a token (at most 16 KiB).
    static let maxInputBytes = 64 * 1024

    /// Decodes, checks and reports; returns the exit status.
    func run() -> Int32 {
        guard let token = (settings.token ?? Self.standardInput())?.trimmingCharacters(in: .whitespacesAndNewlines)
        else {
            Console.error("token inspect: standard input holds more than \(Self.maxInputBytes / 1024) KiB, not a token")
            return ExitStatus.usage
        }
        let decoded: DecodedToken
        do {
            decoded = try DecodedToken(token)
        } catch {
            Console.error("token inspect: not a token: \(error.message)")
            return ExitStatus.failure
        }
        let report = TokenReport(decoded, signature: signature(of: token), now: Date())
        for line in report.lines { Console.out(line) }
        return report.acceptable ? ExitStatus.success : ExitStatus.failure
    }

    /// The signature check with the given key, if any.
    private func signature(of token: String) -> TokenReport.Signature {
        guard let key = settings.key else { return .notChecked }
        do {
            _ = try JWTVerifier(key: key).signedClaims(token: token)
        } catch  where error.reason == .missingClaim || error.reason == .invalidClaim {
            // Claims are read after the signature held; the report shows their fault.
        } catch {
            return .refused(error)
        }
        return .verified(key: key.description)
    }

    /// Standard input, read to its end; nil when it is too large to be a token.
    private static func standardInput() -> String? {
        let data = FileHandle.standardInput.readData(ofLength: maxInputBytes + 1)
        guard data.count <= maxInputBytes else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
