import Foundation

/// Token time arithmetic that no claim value can make trap.
///
/// A JWT NumericDate is any `Int64` here, and `exp` may be `Int64.max`: converting such a value
/// through `Double` and back traps ("Double value cannot be converted to Int64"), and a
/// `Duration` or a sleep of that length overflows. So instants are kept as whole seconds, a
/// `Date` is turned into seconds with `unixSeconds(of:)` (clamped, never trapping), and a time
/// left is clamped to `horizonSeconds` either way: no connection lives a hundred years.
public enum ExpiryMaths {
    /// The longest time left (or past) that `timeLeft` reports: 100 years.
    public static let horizonSeconds: Int64 = 100 * 366 * 86_400

    /// `date` in whole seconds since 1970 UTC, rounded down; clamped to `Int64`'s range (NaN
    /// counts as 0).
    public static func unixSeconds(of date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard !seconds.isNaN else { return 0 }
        if seconds >= -Double(Int64.min) { return .max }
        if seconds < Double(Int64.min) { return .min }
        return Int64(seconds)
    }

    /// The time from `now` until the instant `seconds` (Unix seconds): negative when it has
    /// passed, and within ±`horizonSeconds`.
    public static func timeLeft(until seconds: Int64, now: Date) -> Duration {
        let nowSeconds = unixSeconds(of: now)
        let (difference, overflow) = seconds.subtractingReportingOverflow(nowSeconds)
        let whole: Int64 =
            overflow
            ? (seconds > nowSeconds ? horizonSeconds : -horizonSeconds)
            : min(max(difference, -horizonSeconds), horizonSeconds)
        let time = now.timeIntervalSince1970
        let fraction = time.isFinite && abs(time) < 1e15 ? time - time.rounded(.down) : 0
        return .seconds(whole) - .seconds(fraction)
    }
}
