import Foundation
import OptionParsing

/// The optional `--config` file: one JSON object whose keys are option names
/// (`"port": 9000`, `"slow-consumer": "disconnect"`, `"deflate": true`).
enum ConfigFile {
    /// Reads `path` into option values; every problem is a `UsageError` naming it.
    static func read(_ path: String, specs: [OptionSpec]) throws(UsageError) -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("--config: cannot read '\(path)'")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw UsageError("--config: '\(path)' is not a JSON object of option names and values")
        }
        var values: [String: String] = [:]
        for (name, value) in object {
            guard let spec = specs.first(where: { $0.name == name }), name != "config" else {
                throw UsageError("--config: unknown option '\(name)' in '\(path)'")
            }
            switch value {
            case let flag as Bool where spec.valueName == nil: values[name] = flag ? "true" : "false"
            case let number as NSNumber where spec.valueName != nil: values[name] = number.stringValue
            case let text as String where spec.valueName != nil: values[name] = text
            default: throw UsageError("--config: '\(name)' in '\(path)' has a value of the wrong type")
            }
        }
        return values
    }
}
