import Foundation

/// One log event, rendered as a JSON object or as `key=value` text.
struct LogLine {
    let time: Date
    let level: LogLevel
    let component: String
    let event: String
    let fields: [(String, String)]

    private var stamp: String {
        time.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
    }

    var json: String {
        var out = "{\"ts\":\(quoted(stamp)),\"level\":\(quoted(level.rawValue))"
        out += ",\"component\":\(quoted(component)),\"event\":\(quoted(event))"
        for (key, value) in fields { out += ",\(quoted(key)):\(quoted(value))" }
        return out + "}"
    }

    var text: String {
        var out = "\(stamp) \(level.rawValue.uppercased()) [\(component)] \(event)"
        for (key, value) in fields {
            out += value.contains(where: { $0 == " " || $0 == "\"" }) ? " \(key)=\(quoted(value))" : " \(key)=\(value)"
        }
        return out
    }

    private func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
