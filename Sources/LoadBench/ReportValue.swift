import Foundation
import LocstreamProtocol

/// A JSON value for the bench's report, keeping object members in the order written.
indirect enum ReportValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    /// A number written with at most three decimals; non-finite numbers are written as null.
    case number(Double)
    case string(String)
    case array([ReportValue])
    case object([(String, ReportValue)])

    static func == (lhs: ReportValue, rhs: ReportValue) -> Bool { lhs.json == rhs.json }

    /// An integer, or null.
    static func int(_ value: Int?) -> ReportValue { value.map(ReportValue.int) ?? .null }

    /// A number, or null.
    static func number(_ value: Double?) -> ReportValue { value.map(ReportValue.number) ?? .null }

    /// Compact JSON on one line.
    var json: String {
        var text = ""
        append(to: &text)
        return text
    }

    private func append(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let value): text += value ? "true" : "false"
        case .int(let value): text += String(value)
        case .number(let value): text += Self.format(value)
        case .string(let value): text += String(decoding: JSONValue.string(value).encoded(), as: UTF8.self)
        case .array(let items):
            text += "["
            for (position, item) in items.enumerated() {
                if position > 0 { text += "," }
                item.append(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (position, member) in members.enumerated() {
                if position > 0 { text += "," }
                text += String(decoding: JSONValue.string(member.0).encoded(), as: UTF8.self) + ":"
                member.1.append(to: &text)
            }
            text += "}"
        }
    }

    /// `value` with at most three decimals and no trailing zeros.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
