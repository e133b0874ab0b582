import Foundation

/// The answer an `http` block of `docs/protocol.md` shows: its status line and JSON body.
/// A block may show the request first; the answer starts at its `HTTP/1.1` line.
struct HTTPExample {
    /// `HTTP/1.1 202 Accepted`.
    var statusLine: String
    /// The body, empty when the answer has none.
    var body: String

    /// The answer in `block`, or nil when it shows none.
    init?(_ block: DocBlock) {
        guard block.language == "http", let start = block.lines.firstIndex(where: { $0.hasPrefix("HTTP/1.1 ") }) else {
            return nil
        }
        statusLine = block.lines[start]
        let rest = block.lines[start...]
        body =
            rest.firstIndex(of: "").map { rest[$0...].joined(separator: "\n") }?.trimmingCharacters(
                in: .whitespacesAndNewlines) ?? ""
    }

    /// The status code.
    var status: Int { Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0 }
}
