/// The decimal digits of a JSON number's text and the power of ten they are scaled by, for
/// deciding exactly whether the number is an integer, and which.
struct ExactDigits {
    /// Whether the text starts with `-`.
    private var isNegative = false
    /// Every digit of the integer and fraction parts, leading zeros dropped.
    private var digits: [UInt8] = []
    /// The value is `digits × 10^scale`; nil when the exponent is beyond any integer's reach
    /// (more than 10^9 either way).
    private var scale: Int?

    /// Reads `text`, which must be valid JSON number syntax.
    init(_ text: String) {
        var fractionDigits = 0
        var exponent = 0
        var exponentNegative = false
        var exponentOverflow = false
        var part = 0  // 0: integer part, 1: fraction, 2: exponent
        for byte in text.utf8 {
            switch byte {
            case .minus where part == 0: isNegative = true
            case .minus: exponentNegative = true
            case .plus: break
            case .period: part = 1
            case UInt8(ascii: "e"), UInt8(ascii: "E"): part = 2
            default:
                let digit = byte &- UInt8(ascii: "0")
                if part == 2 {
                    let (shifted, overflow1) = exponent.multipliedReportingOverflow(by: 10)
                    let (next, overflow2) = shifted.addingReportingOverflow(Int(digit))
                    exponentOverflow = exponentOverflow || overflow1 || overflow2 || next > 1_000_000_000
                    exponent = exponentOverflow ? 0 : next
                } else {
                    if part == 1 { fractionDigits += 1 }
                    if !digits.isEmpty || digit != 0 { digits.append(digit) }
                }
            }
        }
        scale = exponentOverflow ? nil : (exponentNegative ? -exponent : exponent) - fractionDigits
    }

    /// The exact integer, or nil when the number has a fractional part or does not fit in `Int64`.
    var integer: Int64? {
        guard !digits.isEmpty else { return 0 }
        guard let scale else { return nil }
        var kept = digits[...]
        if scale < 0 {
            let dropped = kept.suffix(min(-scale, kept.count))
            guard dropped.count == -scale, dropped.allSatisfy({ $0 == 0 }) else { return nil }
            kept = kept.dropLast(-scale)
        }
        guard kept.count + max(scale, 0) <= 19 else { return nil }
        var value: Int64 = 0  // accumulated negatively so that Int64.min fits
        for digit in kept + repeatElement(0, count: max(scale, 0)) {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.subtractingReportingOverflow(Int64(digit))
            guard !overflow1 && !overflow2 else { return nil }
            value = next
        }
        if isNegative { return value }
        return value == .min ? nil : -value
    }
}
