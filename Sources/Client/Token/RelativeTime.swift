import Auth
import Foundation

/// Instants as `token inspect` shows them: UTC in ISO 8601, with how far away they are.
enum RelativeTime {
    /// The last second ISO 8601 can write with four digits of year (9999-12-31T23:59:59Z).
    static let latestWritable: Int64 = 253_402_300_799

    /// `2026-12-02T15:40:00Z (in 57m 57s)`, `… (now)` or `… (3m 2s ago)` for the Unix time `seconds`,
    /// seen from `now`; a time past the year 9999 is written as its number of seconds.
    static func describe(_ seconds: Int64, from now: Date) -> String {
        let left = ExpiryMaths.timeLeft(until: seconds, now: now).components.seconds
        let distance = left == 0 ? "now" : left > 0 ? "in \(span(left))" : "\(span(-left)) ago"
        guard (0...latestWritable).contains(seconds) else { return "\(seconds) s after 1970 (\(distance))" }
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        return "\(date.formatted(.iso8601)) (\(distance))"
    }

    /// `seconds` (not negative) in its two largest units: `1d 2h`, `57m 57s`, `5s`.
    static func span(_ seconds: Int64) -> String {
        let units: [(Int64, String)] = [(86_400, "d"), (3600, "h"), (60, "m"), (1, "s")]
        var rest = seconds
        var parts: [String] = []
        for (size, name) in units where parts.count < 2 && (rest >= size || !parts.isEmpty) {
            parts.append("\(rest / size)\(name)")
            rest %= size
        }
        return parts.isEmpty ? "0s" : parts.joined(separator: " ")
    }
}
