import Foundation
import Testing

/// A real `redis-server` on a free loopback port, for one test: no RDB snapshots, and
/// an append-only file only when asked (so a restart keeps the data).
///
/// `kill` stops it with SIGKILL, as a crash would; `restart` starts it again on the same
/// port, with the same directory; `keepData` and `restartFromKeptData` make it come back
/// without its latest writes. `cli` runs `redis-cli` against it.
package final class RedisHarness {
    package let port: Int
    private let directory: URL
    private let persistent: Bool
    private let password: String?
    private var process: Process?

    /// Starts Redis; with `persistent`, every write is fsynced to an append-only file;
    /// with `password`, clients must authenticate.
    package init(persistent: Bool = false, password: String? = nil) async throws {
        port = try LoopbackPort.free()
        self.persistent = persistent
        self.password = password
        directory = try TemporaryDirectory.lasting(prefix: "locstream-redis")
        try await start()
    }

    deinit {
        if let process, process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// `redis://[:PASSWORD@]127.0.0.1:PORT/0`.
    package var url: String { url(database: 0) }

    /// The URL of `database`, with the password if there is one.
    package func url(database: Int) -> String {
        "redis://\(password.map { ":\($0)@" } ?? "")127.0.0.1:\(port)/\(database)"
    }

    /// The options that point a server at this Redis.
    package var serverArguments: [String] { ["--broker", "redis", "--redis-url", url] }

    /// Kills Redis with SIGKILL and waits until it is gone.
    package func kill() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Sends `signal` (SIGSTOP to hang it, SIGCONT to resume it).
    package func signal(_ signal: Int32) {
        if let process { Glibc.kill(process.processIdentifier, signal) }
    }

    /// Starts Redis again on the same port and directory.
    package func restart() async throws {
        kill()
        try await start()
    }

    /// Copies the append-only files as they are now (Redis must be `persistent`).
    package func keepData() throws {
        let kept = directory.appendingPathComponent("kept")
        try? FileManager.default.removeItem(at: kept)
        try FileManager.default.copyItem(at: directory.appendingPathComponent("appendonlydir"), to: kept)
    }

    /// Kills Redis and starts it again from the files `keepData` copied: a restart that
    /// lost every write since, as one from an append-only file that was not yet synced.
    package func restartFromKeptData() async throws {
        kill()
        let files = directory.appendingPathComponent("appendonlydir")
        try FileManager.default.removeItem(at: files)
        try FileManager.default.copyItem(at: directory.appendingPathComponent("kept"), to: files)
        try await start()
    }

    /// Runs `redis-cli` with `arguments`; returns its output, trimmed.
    package func cli(_ arguments: String...) throws -> String {
        let result = try CommandResult.run(
            URL(fileURLWithPath: "/usr/bin/redis-cli"),
            ["-h", "127.0.0.1", "-p", String(port), "--no-auth-warning"] + (password.map { ["-a", $0] } ?? [])
                + arguments)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func start() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments =
            [
                "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--dir", directory.path,
                "--appendonly", persistent ? "yes" : "no", "--appendfsync", "always", "--logfile", "",
            ] + (password.map { ["--requirepass", $0] } ?? [])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if (try? cli("PING")) == "PONG" { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw RedisHarnessError.didNotStart
    }

    package enum RedisHarnessError: Error { case didNotStart }
}
