import LocstreamProtocol

/// Reads the rights of a token as written on the command line: `veh-*,depot-1`, glob
/// patterns over device ids, separated by commas or blanks.
enum TokenPatterns {
    /// The patterns of `text`, duplicates dropped, order kept. Each is a device id in which
    /// `*` may stand for any run of characters, so that it can match some device; `*` alone
    /// matches every device.
    static func parse(_ text: String) throws(TargetSyntax.Failure) -> [String] {
        var patterns: [String] = []
        for item in TargetSyntax.split(text) where !patterns.contains(item) {
            let literal = item.replacingOccurrences(of: "*", with: "")
            guard literal.isEmpty || DeviceID.isValid(literal) else {
                throw TargetSyntax.Failure(
                    reason: "has a pattern '\(item)' that no device id matches (ids are \(DeviceID.rule); "
                        + "* stands for any run of them)")
            }
            patterns.append(item)
        }
        return patterns
    }
}
