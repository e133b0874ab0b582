import Foundation
import LocstreamProtocol
import TestSupport

/// A `sh` block of `docs/protocol.md` that runs `curl`, with the answer the `http` block
/// right after it shows, if any.
struct ShellExample {
    var block: DocBlock
    var answer: HTTPExample?

    /// Every such example of the guide.
    static func all(in blocks: [DocBlock]) -> [ShellExample] {
        blocks.indices.compactMap { index in
            let block = blocks[index]
            guard block.language == "sh", block.lines.contains(where: { $0.contains("curl ") }) else { return nil }
            let next = blocks.indices.contains(index + 1) ? HTTPExample(blocks[index + 1]) : nil
            return ShellExample(block: block, answer: next)
        }
    }

    /// How running the example on a server set up as its block says differed from what the
    /// document shows: with an answer shown, the status line and the JSON body's shape; without
    /// one, the script must succeed and print something.
    func mismatches() async throws -> [String] {
        let jwt = block.setup["auth"] == "jwt"
        let server = try await ServerHarness(jwt ? TestTokens.serverOptions() : ["--auth", "none"])
        let token = try TestTokens.make()
        let shown = answer.flatMap { try? JSONValue(parsing: Array($0.body.utf8)) }
        for seed in block.seeds {
            guard case .object(let fields)? = shown else { throw ExampleError.noShape(line: block.line) }
            let location = JSONValue.object(fields.filter { $0.key != "seq" && $0.key != "online" })
            try FrameExampleRun.publish(Array(repeating: location, count: seed.count), server: server, token: token)
        }
        let script = block.lines.joined(separator: "\n").replacing(
            "http://localhost:8080", with: server.url("", scheme: "http"))
        let result = try CommandResult.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", script], environment: ["TOKEN": token, "PATH": "/usr/bin:/bin"])
        let place = "docs/protocol.md:\(block.line)"
        guard result.status == 0 else { return ["\(place): exit \(result.status): \(result.stderr)"] }
        guard let answer else { return result.stdout.isEmpty ? ["\(place): printed nothing"] : [] }
        let output = result.stdout.replacing("\r\n", with: "\n")
        let statusLine = output.split(separator: "\n").first.map(String.init) ?? ""
        var found = statusLine == answer.statusLine ? [] : ["\(place): \(statusLine) instead of \(answer.statusLine)"]
        if let shown {
            let body = output.split(separator: "\n\n", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            guard let actual = try? JSONValue(parsing: Array(body.utf8)) else {
                return found + ["\(place): body \(body)"]
            }
            found += FrameShape.mismatches(expected: shown, actual: actual).map { "\(place): \($0) in \(body)" }
        }
        return found
    }

    enum ExampleError: Error { case noShape(line: Int) }
}
