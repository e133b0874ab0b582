import OptionParsing

/// The typed readers the client needs beyond `ParsedOptions.int`: decimals, required
/// strings and the command's single URL operand, each failing with a `UsageError` that
/// names the option.
extension ParsedOptions {
    /// A finite decimal in `range`, or the option's default; throws when neither is there.
    func number(_ name: String, in range: ClosedRange<Double>) throws(UsageError) -> Double {
        guard let value = try optionalNumber(name, in: range) else { throw UsageError("--\(name) is required") }
        return value
    }

    /// A finite decimal in `range`, the option's default, or nil when neither is there.
    func optionalNumber(_ name: String, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let text = string(name) else { return nil }
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, range.contains(value)
        else {
            throw UsageError(
                "--\(name) must be a number from \(Self.show(range.lowerBound)) to \(Self.show(range.upperBound)), "
                    + "not '\(text)'")
        }
        return value
    }

    /// An integer in `range`, or nil when the option is absent and has no default.
    func optionalInt(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard string(name) != nil else { return nil }
        return try int(name, in: range)
    }

    /// The value of an option that must be given.
    func required(_ name: String) throws(UsageError) -> String {
        guard let value = string(name) else { throw UsageError("--\(name) is required") }
        return value
    }

    /// The one operand, the server's URL.
    func singleURL() throws(UsageError) -> String {
        guard let url = positional.first else {
            throw UsageError("the server's URL is missing, e.g. ws://localhost:8080/v1/stream (see --help)")
        }
        if positional.count > 1 { throw UsageError("unexpected argument '\(positional[1])' (see --help)") }
        return url
    }

    private static func show(_ bound: Double) -> String {
        bound == bound.rounded() && abs(bound) < 1e15 ? String(Int64(bound)) : String(bound)
    }
}
