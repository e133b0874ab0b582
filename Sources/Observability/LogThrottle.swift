import Locking

/// Caps how many lines of a noisy kind (refused requests, hostile input) reach the log:
/// at most `perSecond` lines in each wall-clock second. Lines held back are counted, and
/// the count rides on the next line let through, so a flood of bad input costs the log a
/// bounded number of lines and the operator still sees how much there was.
public final class LogThrottle: Sendable {
    private struct Window {
        var second: Int64 = .min
        var written = 0
        var suppressed = 0
    }

    /// Lines let through per second.
    public let perSecond: Int
    private let window = Locked(Window())

    /// A throttle letting `perSecond` lines through each second.
    public init(perSecond: Int) {
        self.perSecond = perSecond
    }

    /// Whether a line may be written in `second`: nil when it must be dropped, else how
    /// many lines were dropped since the last one let through.
    public func admit(atSecond second: Int64) -> Int? {
        window.withLock { window in
            if window.second != second {
                window.second = second
                window.written = 0
            }
            guard window.written < perSecond else {
                window.suppressed += 1
                return nil
            }
            window.written += 1
            defer { window.suppressed = 0 }
            return window.suppressed
        }
    }
}
