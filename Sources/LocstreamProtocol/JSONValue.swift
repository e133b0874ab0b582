/// Any JSON value, keeping numbers as written so that `ping.t` and `attrs` echo exactly.
///
/// A number written without a fraction or exponent that fits in `Int64` (other than `-0`) is
/// `.integer`; every other number is `.number`, which keeps its text.
public indirect enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written as an integer that fits in `Int64`, such as `42` or `-7`.
    case integer(Int64)
    /// Any other number, such as `8.3`, `1e3`, `-0` or `18446744073709551616`, as written.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; when a key repeats in the input, the last value wins.
    case object([String: JSONValue])
}

extension JSONValue {
    /// The value as a `Double` when it is a number of either kind, otherwise nil.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let number): number.value
        default: nil
        }
    }

    /// The value as an `Int64` when it is a number with an integral value that fits, otherwise nil.
    ///
    /// Decided from the digits as written: `1e3` and `1000.0` count as the integer 1000;
    /// `1.5` and `9007199254740993.5` do not, and `9007199254740993.0` is 2^53 + 1, not 2^53.
    public var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .number(let number): number.exactInteger
        default: nil
        }
    }

    /// Whether the value is a JSON number of either kind.
    public var isNumber: Bool { doubleValue != nil }
}
