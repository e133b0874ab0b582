extension ParsedOptions {
    /// A duration written as a whole number and a unit, `s`, `m`, `h` or `d` (`30s`,
    /// `10m`, `2h`, `7d`), in `range`.
    public func duration(_ name: String, in range: ClosedRange<Duration>) throws(UsageError) -> Duration {
        let text = string(name) ?? ""
        guard let duration = Self.parseDuration(text), range.contains(duration) else {
            throw UsageError(
                "--\(name) must be a whole number with s, m, h or d (like 30s, 10m, 2h, 7d) from "
                    + "\(range.lowerBound.components.seconds)s to \(range.upperBound.components.seconds)s, not '\(text)'"
            )
        }
        return duration
    }

    /// `duration` as `parseDuration` reads it, in the largest unit that divides it (`7d`,
    /// `90m`); whole seconds only.
    public static func durationText(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        let unit = [("d", 86_400), ("h", 3600), ("m", 60)].first { seconds != 0 && seconds % $0.1 == 0 }
        return unit.map { "\(seconds / $0.1)\($0.0)" } ?? "\(seconds)s"
    }

    /// `30s`, `10m`, `2h` or `7d` as a duration; nil for anything else.
    static func parseDuration(_ text: String) -> Duration? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        let digits = text.dropLast()
        guard let unit = text.last.flatMap({ units[$0] }), (1...12).contains(digits.count),
            digits.allSatisfy({ ("0"..."9").contains($0) }), let count = Int64(digits)
        else { return nil }
        return .seconds(count * unit)
    }
}
