import Foundation
import LocstreamProtocol

/// Prints what the server says besides locations, as `subscribe` shows it: raw on stdout with
/// `--json`, else a readable line on stderr (`subscribed …`, `unsubscribed …`, errors, and the
/// `welcome` with `--verbose`); errors go to stderr in both. `loc` and `leave` frames are left
/// to the sequence, which prints only its own.
struct StatusFrames: Sendable {
    /// Print frames raw.
    let json: Bool
    /// Print the `welcome` and frames of ops this client does not know.
    let verbose: Bool
    private let formatter = FrameFormatter()

    /// Raw or readable as `json` says; `--verbose` as `verbose`.
    init(json: Bool, verbose: Bool) {
        self.json = json
        self.verbose = verbose
    }

    /// Shows `frame` (decoded as `message`; nil when it did not decode) unless it is a location's.
    func show(_ frame: [UInt8], message: ServerMessage?) {
        switch message {
        case .loc?, .leave?:
            return
        case nil:
            if json { Console.out(String(decoding: frame, as: UTF8.self)) }
            unreadable(frame)
        case .error(let error)?:
            if json { Console.out(String(decoding: frame, as: UTF8.self)) }
            Console.error(FrameFormatter.error(error))
        case let message?:
            if json {
                Console.out(String(decoding: frame, as: UTF8.self))
            } else if verbose || !Self.isWelcome(message) {
                Console.error(formatter.line(for: message, nowMs: Self.nowMs))
            }
        }
    }

    /// The current time, in milliseconds since the Unix epoch.
    static var nowMs: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    private static func isWelcome(_ message: ServerMessage) -> Bool {
        if case .welcome = message { true } else { false }
    }

    /// Says why `frame` did not decode; ops added to the protocol later only with `--verbose`,
    /// as PROTOCOL.md allows extensions.
    private func unreadable(_ frame: [UInt8]) {
        do {
            _ = try ServerMessage.decode(frame)
        } catch {
            if error.code != .unknownOp || verbose {
                Console.error("unreadable frame (\(error)): \(String(decoding: frame, as: UTF8.self).prefix(200))")
            }
        }
    }
}
