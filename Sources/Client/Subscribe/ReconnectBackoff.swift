import Foundation

/// How long to wait before reconnecting: exponential, capped, with jitter so that many
/// clients dropped at once do not all come back in the same instant.
///
/// Attempt `n` (from 1) has a ceiling of `initial × 2^(n-1)`, capped at `maximum`; the delay
/// is drawn from the upper half of that ceiling ("equal jitter"), so it always grows a little
/// and never collapses to zero.
struct ReconnectBackoff: Sendable, Equatable {
    /// The first ceiling, seconds.
    var initial = 0.5
    /// The cap, seconds.
    var maximum = 30.0
    /// A connection that stayed up this long resets the attempt count, seconds.
    var stableAfter = 10.0

    /// The delay before attempt `attempt`, in seconds; `jitter` is uniform in `0...1`.
    func delay(attempt: Int, jitter: Double) -> Double {
        let exponent = Double(min(max(attempt, 1) - 1, 60))
        let ceiling = min(maximum, initial * pow(2, exponent))
        return ceiling / 2 + ceiling / 2 * min(max(jitter, 0), 1)
    }
}
