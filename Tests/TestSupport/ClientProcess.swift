import Foundation

/// A running `stream-client` (or another client program) with its stdin, stdout and stderr in hand.
package final class ClientProcess {
    private let process = Process()
    private let input = Pipe()
    /// What it prints on stdout.
    package let stdout: ProcessOutput
    /// What it prints on stderr.
    package let stderr: ProcessOutput

    /// Starts `stream-client` with `arguments`.
    package convenience init(_ arguments: [String]) throws {
        try self.init(ServerHarness.binDirectory.appendingPathComponent("stream-client"), arguments)
    }

    /// Starts `executable` with `arguments`, with `environment` over ours (without our
    /// `LOCSTREAM_` variables).
    package init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LOCSTREAM_") }
            .merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        stdout = ProcessOutput(reading: out)
        stderr = ProcessOutput(reading: err)
        try process.run()
    }

    deinit {
        process.terminateGracefully()
    }

    /// Writes one line to its stdin.
    package func type(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Waits up to `timeout` for it to exit; returns the status, or nil if it is still running.
    package func exitStatus(within timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Sends `signal`.
    package func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }
}
