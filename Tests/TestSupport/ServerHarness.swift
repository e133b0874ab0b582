import Foundation
import Locking
import Testing

/// A real `stream-server` process on a free loopback port, for one test.
///
/// It starts the binary built beside the test bundle with `--port 0`, waits for the
/// "listening" log line that names the port, and keeps the whole log for assertions.
/// `stop` sends a signal and returns the exit status. The process is terminated when
/// the harness goes away.
package final class ServerHarness {
    package let port: Int
    private let process: Process
    private let output: ProcessOutput

    /// Options that lift the per-connection publish rate, for tests that flood.
    package static let floodLimits = ["--publish-rate", "10000000", "--publish-burst", "10000000"]

    /// Where the executables are: beside the test bundle, or `LOCSTREAM_BIN_DIR`.
    package static var binDirectory: URL {
        if let dir = ProcessInfo.processInfo.environment["LOCSTREAM_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        return (Bundle.main.executableURL ?? Bundle.main.bundleURL).deletingLastPathComponent()
    }

    /// `--event-loop X` when `LOCSTREAM_TEST_EVENT_LOOP=X` is set (`make test-poll`), so
    /// the whole suite can run on another event loop.
    package static let eventLoopArguments =
        ProcessInfo.processInfo.environment["LOCSTREAM_TEST_EVENT_LOOP"].map { ["--event-loop", $0] } ?? []

    /// `--store memory` unless `arguments` choose a store or a data directory: a test
    /// server keeps nothing on disk unless the test is about the store.
    static func storeArguments(for arguments: [String]) -> [String] {
        arguments.contains {
            $0 == "--store" || $0 == "--data-dir" || $0.hasPrefix("--store=") || $0.hasPrefix("--data-dir=")
        }
            ? [] : ["--store", "memory"]
    }

    /// Starts the server with `arguments` after `--host 127.0.0.1 --port 0` (and
    /// `storeArguments`); the `stream-server` in `directory` (by default the one beside
    /// the test bundle).
    package init(
        _ arguments: [String] = [], environment: [String: String] = [:],
        binDirectory directory: URL = ServerHarness.binDirectory
    ) async throws {
        process = Self.process(arguments, environment: environment, binDirectory: directory)
        output = ProcessOutput(capturing: process)
        try process.run()
        guard let line = await output.firstLine(containing: "listening", within: .seconds(30)),
            let range = line.range(of: #"port"?[=:]"?\d+"#, options: .regularExpression),
            let port = Int(line[range].filter(\.isNumber))
        else {
            process.terminate()
            throw HarnessError.didNotStart(output.text)
        }
        self.port = port
    }

    deinit {
        process.terminateGracefully()
    }

    /// A `stream-server` process, not started yet, with `arguments` after `--host
    /// 127.0.0.1 --port 0` (and `storeArguments`), `environment` over ours (without our
    /// `LOCSTREAM_` variables), from `directory`.
    private static func process(_ arguments: [String], environment: [String: String], binDirectory directory: URL)
        -> Process
    {
        let process = Process()
        process.executableURL = directory.appendingPathComponent("stream-server")
        process.arguments =
            ["--host", "127.0.0.1", "--port", "0"] + Self.eventLoopArguments + Self.storeArguments(for: arguments)
            + arguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LOCSTREAM_") }
        env.merge(environment) { $1 }
        process.environment = env
        return process
    }

    /// How a server that was expected to refuse to start ended.
    package struct Ending: Sendable {
        /// Its exit status; nil when it was still running after the wait (and was killed).
        package var status: Int32?
        /// Everything it logged.
        package var log: String
    }

    /// Runs a server with `arguments` (as `init` would) that is expected to refuse to
    /// start, and waits up to `timeout` for it to exit by itself; one still running then
    /// is killed, and its `status` is nil.
    package static func ending(
        _ arguments: [String], environment: [String: String] = [:], within timeout: Duration = .seconds(20)
    ) async throws -> Ending {
        let process = Self.process(arguments, environment: environment, binDirectory: binDirectory)
        let output = ProcessOutput(capturing: process)
        try process.run()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let exited = !process.isRunning
        if !exited {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        // The last lines may still be in the pipe when the process has gone.
        await output.end(within: .seconds(2))
        return Ending(status: exited ? process.terminationStatus : nil, log: output.text)
    }

    /// Everything the server has logged so far.
    package var log: String { output.text }

    /// The first log line containing `needle`, waiting up to `timeout` for it: a line
    /// the server has written may still be in the pipe.
    package func logLine(containing needle: String, within timeout: Duration = .seconds(10)) async -> String? {
        await output.firstLine(containing: needle, within: timeout)
    }

    /// The server's process id.
    package var pid: Int32 { process.processIdentifier }

    /// The server's threads now: each one's kernel id and name (`/proc/PID/task/*/comm`).
    package var threads: [(id: Int32, name: String)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            guard let id = Int32(task),
                let comm = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)
            else { return nil }
            return (id, comm.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// `ws://127.0.0.1:PORT` followed by `path`.
    package func url(_ path: String, scheme: String = "ws") -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }

    /// The integer samples of `/metrics`, by name (labels included).
    package func metrics() throws -> [String: Int] {
        let body = try RawHTTPResponse.fetch(port: port, path: "/metrics").body
        var values: [String: Int] = [:]
        for line in body.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }

    /// The status `/readyz` answers now (0 when the request fails).
    package var readyStatus: Int { (try? RawHTTPResponse.fetch(port: port, path: "/readyz").status) ?? 0 }

    /// Sends `signal` and waits (up to 30 s) for the exit status; -1 if it had to be killed.
    package func stop(signal: Int32 = SIGTERM) async -> Int32 {
        if process.isRunning { kill(process.processIdentifier, signal) }
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return -1
        }
        return process.terminationStatus
    }

    package enum HarnessError: Error { case didNotStart(String) }
}

/// A child process's output, collected line by line, with a way to wait for a line.
package final class ProcessOutput: Sendable {
    private struct State {
        package var text = ""
        package var partial = ""
        package var waiters: [(needle: String, continuation: CheckedContinuation<String?, Never>)] = []
        package var ended = false
    }

    private let state = Locked(State())

    /// Starts collecting the stderr of `process` (before it runs).
    package convenience init(capturing process: Process) {
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        self.init(reading: pipe)
    }

    /// Starts collecting what is written to `pipe`.
    package init(reading pipe: Pipe) {
        pipe.fileHandleForReading.readabilityHandler = { [state] handle in
            let data = handle.availableData
            let ready = state.withLock { state -> [(CheckedContinuation<String?, Never>, String?)] in
                if data.isEmpty {
                    state.ended = true
                    handle.readabilityHandler = nil
                    defer { state.waiters = [] }
                    return state.waiters.map { ($0.continuation, nil) }
                }
                state.partial += String(decoding: data, as: UTF8.self)
                var ready: [(CheckedContinuation<String?, Never>, String?)] = []
                while let newline = state.partial.firstIndex(of: "\n") {
                    let line = String(state.partial[..<newline])
                    state.partial = String(state.partial[state.partial.index(after: newline)...])
                    state.text += line + "\n"
                    let (hit, rest) = (
                        state.waiters.filter { line.contains($0.needle) },
                        state.waiters.filter { !line.contains($0.needle) }
                    )
                    state.waiters = rest
                    ready += hit.map { ($0.continuation, line) }
                }
                return ready
            }
            for (continuation, line) in ready { continuation.resume(returning: line) }
        }
    }

    /// All lines so far.
    package var text: String { state.withLock { $0.text } }

    /// The first line (already seen or still to come) containing `needle`; nil on
    /// timeout or end of output.
    package func firstLine(containing needle: String, within timeout: Duration) async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask { await self.waitForLine(containing: needle) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            self.releaseWaiters(for: needle)
            return first
        }
    }

    /// Returns once the output has ended (every writer closed it), or after `timeout`.
    package func end(within timeout: Duration) async {
        // No line holds a NUL, so this waits for the end of the output (or the timeout).
        _ = await firstLine(containing: "\u{0}", within: timeout)
    }

    private func waitForLine(containing needle: String) async -> String? {
        await withCheckedContinuation { continuation in
            let found: String?? = state.withLock { state in
                if let line = state.text.split(separator: "\n").first(where: { $0.contains(needle) }) {
                    return .some(String(line))
                }
                if state.ended { return .some(nil) }
                state.waiters.append((needle, continuation))
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }

    private func releaseWaiters(for needle: String) {
        let released = state.withLock { state in
            defer { state.waiters.removeAll { $0.needle == needle } }
            return state.waiters.filter { $0.needle == needle }.map(\.continuation)
        }
        for continuation in released { continuation.resume(returning: nil) }
    }
}
