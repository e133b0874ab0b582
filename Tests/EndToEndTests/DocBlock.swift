import Foundation
import TestSupport

/// A fenced code block of `docs/protocol.md`: the words of its info string and its lines,
/// with the fence's indentation taken off (a block may stand in a list item).
struct DocBlock {
    /// The first word after the fence: `frames`, `sh`, `http`, `json`…
    var language: String
    /// The `key=value` words after it, which set an example up.
    var setup: [String: String]
    var lines: [String]
    /// The line of the document the block starts on, for messages.
    var line: Int

    /// Every fenced block of `docs/protocol.md`, in order.
    static func protocolGuide() throws -> [DocBlock] {
        let url = DeployTools.root.appendingPathComponent("docs/protocol.md")
        return blocks(in: try String(contentsOf: url, encoding: .utf8))
    }

    /// Every fenced block of `markdown`, in order.
    static func blocks(in markdown: String) -> [DocBlock] {
        var blocks: [DocBlock] = []
        var open: (block: DocBlock, indent: Int)?
        for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let indent = line.prefix { $0 == " " }.count
            let trimmed = line.dropFirst(indent)
            if var current = open {
                if trimmed == "```" {
                    blocks.append(current.block)
                    open = nil
                } else {
                    current.block.lines.append(String(line.dropFirst(min(indent, current.indent))))
                    open = current
                }
            } else if trimmed.hasPrefix("```") {
                let words = trimmed.dropFirst(3).split(separator: " ").map(String.init)
                let setup = words.dropFirst().map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
                open = (
                    DocBlock(
                        language: words.first ?? "", setup: Dictionary(setup.map { ($0[0], $0.last ?? "") }) { $1 },
                        lines: [], line: index + 1),
                    indent
                )
            }
        }
        return blocks
    }

    /// The `seed=veh-17:42,veh-18:7` setup: each device and the seq it has published up to.
    var seeds: [(device: String, count: Int)] {
        (setup["seed"] ?? "").split(separator: ",").compactMap { pair in
            let parts = pair.split(separator: ":")
            guard parts.count == 2, let count = Int(parts[1]) else { return nil }
            return (String(parts[0]), count)
        }
    }
}
