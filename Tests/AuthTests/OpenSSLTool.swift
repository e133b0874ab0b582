import Foundation

/// Runs the `openssl` command-line tool, which makes the keys and signatures of the test
/// tokens independently of the code under test.
enum OpenSSLTool {
    /// A failed run, with openssl's own error output.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `openssl arguments…` with `input` on stdin and returns its stdout.
    static func run(_ arguments: [String], input: [UInt8] = []) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let errors = try TemporaryDirectory()
        let stderrURL = errors.url.appendingPathComponent("stderr")
        try Data().write(to: stderrURL)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        defer { try? stderr.close() }
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        if !input.isEmpty { try stdin.fileHandleForWriting.write(contentsOf: input) }
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
            throw Failure(description: "openssl \(arguments.joined(separator: " ")) failed: \(message)")
        }
        return Array(output)
    }
}
