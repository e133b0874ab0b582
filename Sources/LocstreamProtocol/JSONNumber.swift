/// A JSON number that is not a plain `Int64` integer, kept as its text so that it echoes
/// exactly as written (`-0`, `1.50`, `18446744073709551616`) and so that "is it an integer,
/// and which one" is decided from its digits, never from a rounded `Double`.
///
/// `9007199254740993.0` is the integer 2^53 + 1 here, although its `Double` is 2^53.
public struct JSONNumber: Sendable, Hashable, ExpressibleByFloatLiteral {
    /// The number as written: valid JSON number syntax, always finite.
    public let text: String
    /// The nearest `Double`.
    public let value: Double

    /// A number read by the parser: `text` is valid JSON number syntax and `value` its finite double.
    init(text: String, value: Double) {
        self.text = text
        self.value = value
    }

    /// A number this side writes, in `Double`'s shortest round-trip form; `value` must be finite.
    public init(_ value: Double) {
        precondition(value.isFinite, "JSON numbers are finite")
        self.init(text: value.description, value: value)
    }

    /// A number from a literal, as `init(_:)`.
    public init(floatLiteral value: Double) {
        self.init(value)
    }

    /// The number's exact value when it is an integer that fits in `Int64`, decided from the
    /// digits: `1e3`, `1000.0` and `-0` are integers; `1.5`, `1e-400` and
    /// `9223372036854775808` are not.
    public var exactInteger: Int64? {
        ExactDigits(text).integer
    }
}
