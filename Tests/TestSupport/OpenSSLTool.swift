import Foundation

/// Runs the `openssl` command-line tool, which makes the keys and signatures of the test
/// tokens independently of the code under test.
package enum OpenSSLTool {
    /// A failed run, with openssl's own error output.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Runs `openssl arguments…` with `input` on stdin and returns its stdout.
    package static func run(_ arguments: [String], input: [UInt8] = []) throws -> [UInt8] {
        let result = try CommandResult.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["openssl"] + arguments, input: input)
        guard result.status == 0 else {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
        return result.output
    }
}
