import Foundation
import LocstreamProtocol

/// The timers of an authenticated connection: the warning shortly before its token
/// expires, and the 1008 close at expiry. A refresh replaces the watch; cancelling
/// it stops both.
struct TokenWatch {
    /// Starts watching a token with `remaining` time left (`Claims.timeLeft`, clamped to
    /// ±100 years, so the sums below and the sleeps cannot overflow).
    static func start(
        remaining: Duration, authentication: TokenAuthentication, sink: any FrameSink, clock: any NodeClock
    ) -> Task<Void, Never> {
        let warnIn = remaining - authentication.warningLead
        let closeIn = remaining + authentication.leeway
        return Task {
            if warnIn > .zero { try? await clock.sleep(for: warnIn) }
            guard !Task.isCancelled else { return }
            sink.sendControl(ServerMessage.error(ProtocolError(.unauthorized, "token expiring")).encoded())
            let untilClose = closeIn - max(warnIn, .zero)
            if untilClose > .zero { try? await clock.sleep(for: untilClose) }
            guard !Task.isCancelled else { return }
            sink.close(code: 1008, reason: "token expired")
        }
    }

    /// Closes the connection with 1008 unless cancelled (by a valid token) within `timeout`.
    static func deadline(_ timeout: Duration, sink: any FrameSink, clock: any NodeClock) -> Task<Void, Never> {
        Task {
            try? await clock.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            sink.close(code: 1008, reason: "no valid token in time")
        }
    }
}
