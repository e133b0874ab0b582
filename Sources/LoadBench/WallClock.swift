import Foundation

/// The host's wall clock in microseconds and milliseconds since the Unix epoch.
///
/// Latency is the receive time minus the publish time, both read from this clock in one
/// process (or on one host), so the two ends share it.
enum WallClock {
    /// Microseconds since the Unix epoch (`CLOCK_REALTIME`, a vDSO call: tens of ns).
    static func micros() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    /// Milliseconds since the Unix epoch.
    static func millis() -> Int64 { micros() / 1000 }
}
