import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// `--threads`: several service threads behind one port, dealt connections in turn by
    /// an accept thread, serve as one server.
    @Suite("service threads")
    struct ServiceThreadsTests {
        @Test("--threads 3: three service threads and an accept thread; viewers on every thread get each publication")
        func fanOutAcrossThreads() async throws {
            try await ServerHarness.withClient(["--threads", "3"]) { server, client in
                let names = server.threads.map(\.name)
                #expect(names.filter { $0 == "lws-server" }.count == 3, "\(names)")
                #expect(names.filter { $0 == "lws-accept" }.count == 1, "\(names)")
                // Dealt in turn, six viewers sit two on each thread, and the publisher on one.
                var viewers: [StreamTestClient] = []
                for index in 0..<6 {
                    let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                    viewer.send(subscribe("v\(index)", ["veh-1"]))
                    #expect(await viewer.next() == .subscribed(sub: "v\(index)", restarted: false, snapshot: 0))
                    viewers.append(viewer)
                }
                let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
                for lat in 1...3 {
                    publisher.send(.publish([testLocation("veh-1", lat: Double(lat))], ack: true))
                    #expect(await publisher.next() == .published(count: 1))
                }
                for (index, viewer) in viewers.enumerated() {
                    var seqs: [UInt64] = []
                    for _ in 1...3 {
                        guard case .loc(let sub, let location)? = await viewer.next(), sub == "v\(index)" else { break }
                        seqs.append(location.seq)
                    }
                    #expect(seqs == [1, 2, 3], "viewer \(index)")
                }
            }
        }

        @Test("--max-connections and --max-connections-per-ip count the connections of every thread")
        func limitsAcrossThreads() async throws {
            // In turn, the fourth connection lands on the thread that holds one: counted per
            // thread, it would be let in.
            let server = try await ServerHarness(["--threads", "2", "--max-connections", "3"])
            let held = try (0..<3).map { _ in try RawWebSocket(port: server.port, path: "/v1/stream") }
            #expect(held.allSatisfy { $0.handshake.contains(" 101 ") })
            #expect(try RawWebSocket(port: server.port, path: "/v1/stream").handshake.contains(" 503 "))
            #expect(try server.metrics()["locstream_connections"] == 3)

            let perAddress = try await ServerHarness(["--threads", "2", "--max-connections-per-ip", "3"])
            let three = try (0..<3).map { _ in try RawWebSocket(port: perAddress.port, path: "/v1/stream") }
            #expect(three.allSatisfy { $0.handshake.contains(" 101 ") })
            #expect(try RawWebSocket(port: perAddress.port, path: "/v1/stream").handshake.contains(" 503 "))
            #expect(
                try RawWebSocket(port: perAddress.port, path: "/v1/stream", source: "127.0.0.6").handshake.contains(
                    " 101 "))
        }

        @Test("upgrades racing on two threads for the last places: exactly --max-connections are let in")
        func racingUpgrades() async throws {
            // Both service threads share one core, so one is often preempted between an
            // upgrade's check and its ESTABLISHED while the other checks the next; and all
            // requests are sent before any answer is read. Counted at ESTABLISHED, more
            // than the limit got 101 in one run of three with 5 rounds.
            let limit = 20
            let server = try await ServerHarness(["--threads", "2", "--max-connections", "\(limit)"])
            let pinned = try CommandResult.run(
                URL(fileURLWithPath: "/usr/bin/taskset"), ["-a", "-p", "-c", "0", "\(server.pid)"])
            #expect(pinned.status == 0, "\(pinned.stderr)")
            for _ in 0..<20 {
                try await raceForPlaces(on: server, limit: limit)
                #expect(await eventually { (try? server.metrics()["locstream_connections"]) == 0 })
            }
        }

        /// Sends 200 upgrade requests at once, then reads every answer; closes them all on return.
        private func raceForPlaces(on server: ServerHarness, limit: Int) async throws {
            let request =
                "GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            let sockets = try (0..<200).map { _ in try RawSocket(port: server.port) }
            for socket in sockets { try socket.send(Array(request.utf8)) }
            let statuses = try sockets.map { socket in
                String(decoding: try socket.read(until: Array("\r\n".utf8)), as: UTF8.self)
            }
            #expect(statuses.filter { $0.contains(" 101 ") }.count == limit)
            #expect(statuses.filter { $0.contains(" 503 ") }.count == sockets.count - limit)
            #expect(await eventually { (try? server.metrics()["locstream_connections"]) == limit })
            withExtendedLifetime(sockets) {}
        }

        @Test("SIGTERM with --threads 2 closes the clients of both threads with 1001; the process exits 0")
        func drainAcrossThreads() async throws {
            try await ServerHarness.withClient(["--threads", "2", "--enable-echo"]) { server, client in
                var connections: [WebSocketConnection] = []
                for _ in 0..<6 { connections.append(try await client.connect(to: server.url("/v1/echo"))) }
                #expect(await server.stop() == 0)
                for connection in connections {
                    for await _ in connection.messages {}
                    #expect(connection.peerClose?.code == 1001)
                }
            }
        }

        @Test(
            "out of descriptors, the accept thread waits and says so; the bystander carries on, and clients get in again once descriptors are free"
        )
        func outOfDescriptors() async throws {
            let temporary = try TemporaryDirectory(prefix: "locstream-nofile")
            let binaries = try Self.limitedServer(openFiles: 64, in: temporary.url)
            let server = try await ServerHarness(["--threads", "2"], binDirectory: binaries)
            let bystander = try await Bystander(server)
            // Connected by the kernel, queued on the listening socket, accepted until the
            // server has no descriptor left.
            var flood = try (0..<80).map { _ in try RawSocket(port: server.port) }
            #expect(await server.logLine(containing: "accept failed") != nil)
            #expect(server.log.contains("Too many open files"))
            let before = bystander.frames
            let moving = await eventually(within: .seconds(5)) { bystander.frames >= before + 5 }
            #expect(moving, "the bystander's frames still flow")
            flood.removeAll()  // closes them
            let admitted = await eventually(within: .seconds(15)) {
                (try? RawWebSocket(port: server.port, path: "/v1/stream").handshake.contains(" 101 ")) == true
            }
            #expect(admitted)
            await bystander.expectUnharmed()
            withExtendedLifetime(temporary) {}
        }

        @Test("--threads 2 with TLS files lws cannot load: the start fails, says why and exits, without hanging")
        func contextFailure() async throws {
            let temporary = try TemporaryDirectory(prefix: "locstream-bad-tls")
            let pem = temporary.url.appendingPathComponent("not.pem")
            try "not a certificate\n".write(to: pem, atomically: true, encoding: .utf8)
            let ending = try await ServerHarness.ending(
                ["--threads", "2", "--tls-cert", pem.path, "--tls-key", pem.path], within: .seconds(20))
            #expect(ending.status != nil && ending.status != 0, "\(ending.log)")
            #expect(ending.log.contains("cannot start"), "\(ending.log)")
            withExtendedLifetime(temporary) {}
        }

        /// A `stream-server` in `directory` that runs the real one with at most
        /// `openFiles` descriptors (util-linux `prlimit`).
        static func limitedServer(openFiles: Int, in directory: URL) throws -> URL {
            let bin = directory.appendingPathComponent("bin")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            let real = ServerHarness.binDirectory.appendingPathComponent("stream-server").path
            let script = "#!/bin/sh\nexec prlimit --nofile=\(openFiles):\(openFiles) '\(real)' \"$@\"\n"
            let wrapper = bin.appendingPathComponent("stream-server")
            try script.write(to: wrapper, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper.path)
            return bin
        }

        @Test("--threads 1: lws listens itself, with no accept thread")
        func oneThread() async throws {
            let server = try await ServerHarness(["--threads", "1"])
            let names = server.threads.map(\.name)
            #expect(names.filter { $0 == "lws-server" }.count == 1 && !names.contains("lws-accept"), "\(names)")
            #expect(try RawWebSocket(port: server.port, path: "/v1/stream").handshake.contains(" 101 "))
        }

        @Test("--threads defaults to the cores the process may run on: 1 under taskset -c 0")
        func defaultFollowsAffinity() throws {
            let binary = ServerHarness.binDirectory.appendingPathComponent("stream-server")
            let pinned = try CommandResult.run(
                URL(fileURLWithPath: "/usr/bin/taskset"), ["-c", "0", binary.path, "--help"])
            let line = pinned.stdout.split(separator: "\n").first { $0.contains("--threads N") }
            #expect(line?.hasSuffix("(default: 1)") == true, "\(line ?? "no --threads line")")
        }

        @Test(
            "bad --threads values and a --host that is not an IPv4 address are refused with the reason",
            arguments: [
                (["--threads", "0"], "--threads"), (["--threads", "257"], "--threads"),
                (["--threads", "2", "--host", "localhost"], "IPv4"),
            ])
        func refused(arguments: [String], reason: String) async throws {
            let ending = try await ServerHarness.ending(arguments)
            #expect(ending.status != nil && ending.status != 0)
            #expect(ending.log.contains(reason), "\(ending.log)")
        }
    }
}
