import Foundation
import LocstreamProtocol

/// A `frames` block of `docs/protocol.md` as steps: the frames to send, and the frames to
/// expect with their shape. A line `→ FRAME` is sent as written; `← FRAME` is expected, or
/// published by the test first when commented `# live`; one commented `# may …` is left out.
/// A comment starts at two spaces and `#`, or a line starting with `#`.
struct FrameExample {
    /// One line of the example.
    enum Step {
        case send(String)
        case expect(JSONValue, text: String, live: Bool)
    }

    var block: DocBlock
    var steps: [Step]

    /// The example in `block`; throws when a `←` line is not JSON.
    init(_ block: DocBlock) throws {
        self.block = block
        steps = try block.lines.compactMap { line throws -> Step? in
            let parts = line.split(separator: "  #", maxSplits: 1, omittingEmptySubsequences: false)
            let frame = parts[0].trimmingCharacters(in: .whitespaces)
            let comment = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            if frame.hasPrefix("→ ") { return .send(String(frame.dropFirst(2))) }
            guard frame.hasPrefix("← "), !comment.hasPrefix("may") else { return nil }
            let text = String(frame.dropFirst(2))
            do {
                return .expect(try JSONValue(parsing: Array(text.utf8)), text: text, live: comment == "live")
            } catch {
                throw ExampleError.notJSON(line: block.line, text)
            }
        }
    }

    /// Whether the test sends anything: a block without `→` shows frames the server sends
    /// on its own, checked against the schemas only.
    var isRunnable: Bool { steps.contains { if case .send = $0 { true } else { false } } }

    /// The frames the example expects, as written.
    var expectedFrames: [String] {
        steps.compactMap { if case .expect(_, let text, _) = $0 { text } else { nil } }
    }

    /// The first expected `loc` frame of `device`, for seeding it with the same fields.
    func firstLocation(of device: String) -> [String: JSONValue]? {
        for case .expect(.object(let frame), _, _) in steps
        where frame["op"] == .string("loc") && frame["device"] == .string(device) {
            return frame
        }
        return nil
    }

    enum ExampleError: Error { case notJSON(line: Int, String) }
}
