import Foundation
import LocstreamProtocol
import TestSupport

/// `Tests/Contract/check_contract.py`, run by the Python of `deploy/.venv` (where `make
/// deploy-tools` installs `jsonschema` and `openapi-spec-validator`): checks instances
/// against the JSON Schemas of `docs/schema`, and the contract documents themselves.
struct ContractChecker {
    private let python: URL
    private var lines: [String] = []

    /// The checker, or an error saying how to install it.
    init() throws {
        guard let validator = DeployTools.find("openapi-spec-validator") else { throw CheckerError.notInstalled }
        python = validator.deletingLastPathComponent().appendingPathComponent("python3")
    }

    /// Adds `instance` (JSON text), to be checked against `schema` (a file of docs/schema):
    /// it must fit, or with `valid` false must not; `label` names it in a failure.
    mutating func add(_ instance: String, schema: String, label: String, valid: Bool = true) {
        lines.append(
            #"{"label":\#(quoted(label)),"schema":"\#(schema)","valid":\#(valid),"instance":\#(oneLine(instance))}"#)
    }

    /// Adds an HTTP body, to be checked against what `docs/openapi.json` says `method` on
    /// `path` answers with `status`; `label` names it in a failure.
    mutating func add(body: String, method: String, path: String, status: Int, label: String = "") {
        let label = quoted("\(label) \(method.uppercased()) \(path) \(status)")
        lines.append(
            #"{"label":\#(label),"openapi":["\#(method)","\#(path)","\#(status)"],"instance":\#(oneLine(body))}"#
        )
    }

    /// JSON text on one line: a line break is white space between tokens (in a string, it
    /// would not be JSON).
    private func oneLine(_ json: String) -> String { json.replacing("\n", with: " ") }

    /// Checks every instance added; the checker's report, and whether all passed.
    func checkInstances() throws -> (passed: Bool, report: String) {
        try run(["instances"], input: lines.joined(separator: "\n") + "\n")
    }

    /// Checks the schemas, `docs/openapi.json` and `docs/asyncapi.json`.
    func checkDocuments() throws -> (passed: Bool, report: String) {
        try run(["documents"], input: "")
    }

    private func run(_ arguments: [String], input: String) throws -> (passed: Bool, report: String) {
        let script = DeployTools.root.appendingPathComponent("Tests/Contract/check_contract.py").path
        let result = try CommandResult.run(python, [script] + arguments, input: Array(input.utf8))
        return (result.status == 0, result.stdout + result.stderr)
    }

    private func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(text).encoded(), as: UTF8.self)
    }

    enum CheckerError: Error, CustomStringConvertible {
        case notInstalled
        var description: String { "openapi-spec-validator not found: make deploy-tools installs it in deploy/.venv" }
    }
}
