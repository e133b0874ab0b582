import Foundation
import TestSupport
import Testing

// MARK: - compose and HAProxy

extension DeployArtefactTests {
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
        #expect(
            Self.array(node1["volumes"]).compactMap(Self.string).contains {
                $0.split(separator: ":").dropFirst().first.map(String.init) == Self.dataDirectory && !$0.hasPrefix("/")
            }, "node1's store on a named volume (docker-compose 1.29 writes NAME:PATH:MODE)")
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
}

// MARK: - haproxy.cfg, parsed just enough

extension DeployArtefactTests {
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
                throw DeployArtefactTests.DeployTestError.unparsable("haproxy.cfg")
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
