import Foundation
import TestSupport
import Testing

// MARK: - systemd

extension DeployArtefactTests {
    @Test("systemd-analyze verify accepts locstream.service, ExecStart pointed at the built binary")
    func systemdVerify() throws {
        let unit = try Self.unitCopy()
        let analyze = try Self.tool("systemd-analyze", package: "systemd (Debian)")
        let result = try Self.run(analyze, ["verify", unit.path])
        #expect(result.status == 0, "systemd-analyze verify: \(result.stdout)\(result.stderr)")
        #expect((result.stdout + result.stderr).isEmpty, "systemd-analyze verify: \(result.stdout)\(result.stderr)")
    }

    @Test("locstream.service: hardening, stop timing, credentials, settings the binary accepts, exposure score")
    func systemdSettings() throws {
        let unit = try SystemdUnit(Self.text("deploy/systemd/locstream.service"))
        let expected: [(String, String)] = [
            ("DynamicUser", "yes"), ("ProtectSystem", "strict"), ("ProtectHome", "yes"), ("NoNewPrivileges", "yes"),
            ("PrivateTmp", "yes"), ("LimitNOFILE", "65536"), ("Restart", "on-failure"), ("KillSignal", "SIGTERM"),
            ("CapabilityBoundingSet", ""), ("EnvironmentFile", "-/etc/locstream/env"),
        ]
        for (key, value) in expected {
            #expect(unit.values(key).last == value, "\(key)=\(value)")
        }
        let environment = unit.environment
        let shutdown = try Self.seconds(
            environment["LOCSTREAM_SHUTDOWN_TIMEOUT"] ?? Self.serverDefault("--shutdown-timeout"))
        let stop = try Self.seconds(try #require(unit.values("TimeoutStopSec").last))
        #expect(stop > shutdown, "TimeoutStopSec \(stop) s > shutdown timeout \(shutdown) s")

        // The settings as the service would see them: %d is the credentials directory,
        // holding what LoadCredential= names.
        let (settings, arguments) = try Self.unitSettings(unit)
        let config = try Self.printConfig(arguments, environment: settings)
        #expect(config.status == 0, "stream-server refuses the unit's settings: \(config.stderr)")
        #expect(config.settings["auth"] == "jwt(env)")

        let analyze = try Self.tool("systemd-analyze", package: "systemd (Debian)")
        let security = try Self.run(
            analyze, ["security", "--offline=true", "--no-pager", try Self.unitCopy().path])
        let level = security.stdout.firstMatch(of: /Overall exposure level for [^:]+: ([0-9.]+)/)
        let exposure = try #require(level.flatMap { Double($0.output.1) }, "\(security.stdout)\(security.stderr)")
        #expect(exposure <= 2.0, "exposure \(exposure)")
    }

    @Test(
        "under strace, the server calls only what the unit's SystemCallFilter allows, in its address families, without W+X memory",
        .disabled(
            if: DeployArtefactTests.builtForThreadSanitizer, "TSan's runtime makes system calls of its own"
        )
    )
    func systemCalls() async throws {
        let strace = try Self.tool("strace", package: "strace (Debian)")
        let analyze = try Self.tool("systemd-analyze", package: "systemd (Debian)")
        let unit = try SystemdUnit(Self.text("deploy/systemd/locstream.service"))
        let groups = try Self.syscallGroups(analyze)
        var allowed: Set<String> = []
        var denied: Set<String> = []
        for line in unit.values("SystemCallFilter") {
            let deny = line.hasPrefix("~")
            let names = line.dropFirst(deny ? 1 : 0).split(separator: " ").map(String.init)
            let expanded = Self.expand(names, groups: groups)
            if deny { denied.formUnion(expanded) } else { allowed.formUnion(expanded) }
        }
        allowed.subtract(denied)
        #expect(allowed.contains("epoll_wait") && !allowed.contains("setuid"))

        let (settings, arguments) = try Self.unitSettings(unit)
        let trace = try Self.temporaryDirectory().appendingPathComponent("trace")
        let process = Process()
        process.executableURL = strace
        process.arguments =
            ["-f", "-qq", "-o", trace.path, Self.binary.path] + arguments
            + ["--host", "127.0.0.1", "--port", "0", "--data-dir", trace.deletingLastPathComponent().path + "/data"]
        process.environment = Self.cleanEnvironment(settings)
        let output = ProcessOutput(capturing: process)
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        let line = try #require(
            await output.firstLine(containing: "listening", within: .seconds(30)), "\(output.text)")
        let port = try #require(line.firstMatch(of: /port"?[=:]"?(\d+)/).flatMap { Int($0.output.1) }, "\(line)")

        // Exercise it: HTTP routes, an authenticated publish, a WebSocket that
        // subscribes, receives, and is closed by the drain.
        let token = try TestTokens.make()
        #expect(try RawHTTPResponse.fetch(port: port, path: "/healthz").status == 200)
        #expect(try RawHTTPResponse.fetch(port: port, path: "/readyz").status == 200)
        #expect(try RawHTTPResponse.fetch(port: port, path: "/metrics").status == 200)
        let socket = try RawWebSocket(
            port: port, path: "/v1/stream", extraHeaders: ["Authorization: Bearer \(token)"])
        #expect(try Self.nextText(socket).contains(#""op":"welcome""#))
        try socket.send(text: #"{"op":"subscribe","sub":"s1","devices":["veh-1"]}"#)
        #expect(try Self.nextText(socket).contains(#""op":"subscribed""#))
        let publish = try RawHTTPResponse.fetch(
            port: port, method: "POST", path: "/v1/locations",
            body: #"[{"device":"veh-1","lat":52.5,"lon":13.4,"ts":1764421200000}]"#,
            headers: ["Authorization: Bearer \(token)"])
        #expect(publish.status == 202, "\(publish.body)")
        #expect(try Self.nextText(socket).contains(#""op":"loc""#))
        let server = try #require(Self.childProcess(of: process.processIdentifier))
        kill(server, SIGTERM)
        #expect(socket.readUntilClose()?.closeCode == 1001)
        let exited = await Self.poll(timeout: .seconds(30)) { !process.isRunning }
        #expect(exited, "\(output.text)")

        let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n")
        let calls = Set(lines.compactMap { $0.firstMatch(of: /^\d+\s+([a-z0-9_]+)\(/).map { String($0.output.1) } })
        #expect(calls.contains("accept") || calls.contains("accept4"), "the trace covers the serving")
        // SQLite gives the files it creates beside its database (-wal, -shm) the database's
        // owner with fchown, but only when it runs as root (`robustFchown` checks geteuid()).
        // The unit never does (DynamicUser=yes); this test does, so fchown is not held against it.
        let outside = calls.subtracting(allowed).subtracting(["fchown"])
        #expect(outside.isEmpty, "outside SystemCallFilter: \(outside.sorted())")
        let families = Set(
            lines.compactMap { $0.firstMatch(of: /\bsocket\((AF_[A-Z0-9]+)/).map { String($0.output.1) } })
        let permitted = Set(
            unit.values("RestrictAddressFamilies").flatMap { $0.split(separator: " ").map(String.init) })
        #expect(
            families.isSubset(of: permitted), "address families \(families.sorted()) beyond \(permitted.sorted())")
        if unit.values("MemoryDenyWriteExecute").last == "yes" {
            let writableCode = lines.filter {
                ($0.contains("mmap(") || $0.contains("mprotect(")) && $0.contains("PROT_WRITE")
                    && $0.contains("PROT_EXEC")
            }
            #expect(writableCode.isEmpty, "W+X mappings: \(writableCode.prefix(3))")
        }
    }
}

// MARK: - systemd support

extension DeployArtefactTests {
    /// The unit's key=value lines (all of them, in order).
    struct SystemdUnit {
        var entries: [(key: String, value: String)] = []

        init(_ text: String) {
            for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("[") {
                let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.count == 2 { entries.append((String(parts[0]), String(parts[1]))) }
            }
        }

        func values(_ key: String) -> [String] { entries.filter { $0.key == key }.map(\.value) }

        /// Environment= assignments.
        var environment: [String: String] {
            var environment: [String: String] = [:]
            for assignment in values("Environment") {
                for pair in assignment.split(separator: " ") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 { environment[String(parts[0])] = String(parts[1]) }
                }
            }
            return environment
        }
    }

    /// A copy of the unit in a temporary directory, ExecStart pointed at the built binary.
    static func unitCopy() throws -> URL {
        let text = try Self.text("deploy/systemd/locstream.service")
        let rewritten = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix("ExecStart=/usr/local/bin/stream-server")
                ? "ExecStart=" + binary.path + line.dropFirst("ExecStart=/usr/local/bin/stream-server".count)
                : String(line)
        }.joined(separator: "\n")
        #expect(rewritten != text, "ExecStart runs /usr/local/bin/stream-server")
        let unit = try temporaryDirectory().appendingPathComponent("locstream.service")
        try Data(rewritten.utf8).write(to: unit)
        return unit
    }

    /// The unit's environment and ExecStart arguments as the service would get them: %d is
    /// a credentials directory holding each LoadCredential= file (a test secret).
    static func unitSettings(_ unit: SystemdUnit) throws -> (environment: [String: String], arguments: [String]) {
        let credentials = try temporaryDirectory()
        for credential in unit.values("LoadCredential") {
            let name = String(credential.split(separator: ":")[0])
            try Data(TestTokens.secret.utf8).write(to: credentials.appendingPathComponent(name))
        }
        let environment = unit.environment.mapValues { $0.replacingOccurrences(of: "%d", with: credentials.path) }
        let start = unit.values("ExecStart").last?.split(separator: " ").map(String.init) ?? []
        return (environment, Array(start.dropFirst()))
    }

    /// `systemd-analyze syscall-filter`: each @group's members (names and @groups).
    static func syscallGroups(_ analyze: URL) throws -> [String: [String]] {
        let output = try run(analyze, ["syscall-filter", "--no-pager"]).stdout
        var groups: [String: [String]] = [:]
        var current: String?
        for line in output.split(separator: "\n") {
            if line.hasPrefix("@") {
                current = String(line)
                groups[String(line)] = []
            } else if line.hasPrefix(" "), let group = current {
                let member = line.trimmingCharacters(in: .whitespaces)
                if !member.hasPrefix("#") { groups[group, default: []].append(member) }
            } else {
                current = nil
            }
        }
        return groups
    }

    static func expand(_ names: [String], groups: [String: [String]]) -> Set<String> {
        var result: Set<String> = []
        var pending = names
        var seen: Set<String> = []
        while let name = pending.popLast() {
            if name.hasPrefix("@") {
                if seen.insert(name).inserted { pending += groups[name] ?? [] }
            } else {
                result.insert(name)
            }
        }
        return result
    }
}
