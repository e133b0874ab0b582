import Foundation
import LocstreamProtocol
import TestSupport
import Testing

extension EndToEnd {
    /// `stream-client` against the real server: what a newcomer types first.
    @Suite("stream-client against the real server")
    struct ClientCommandTests {
        private var client: URL { ServerHarness.binDirectory.appendingPathComponent("stream-client") }

        /// Runs `stream-client arguments` to its end; records an issue unless it exits 0.
        private func expectSucceeds(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
            let result = try CommandResult.run(client, arguments)
            #expect(result.status == 0, "\(arguments)", sourceLocation: sourceLocation)
        }

        /// Types `quit` into `process`; records an issue unless it then exits 0 within 10 s.
        private func expectQuits(_ process: ClientProcess, sourceLocation: SourceLocation = #_sourceLocation) async {
            process.type("quit")
            #expect(await process.exitStatus(within: .seconds(10)) == 0, sourceLocation: sourceLocation)
        }

        @Test("publish acks; subscribe prints readable lines, and --json prints one valid JSON frame per line")
        func publishAndSubscribe() async throws {
            let server = try await ServerHarness()
            let url = server.url("/v1/stream")
            try expectSucceeds([
                "publish", url, "--device", "veh-1", "--lat", "52.52", "--lon", "13.405", "--speed", "8.5",
            ])

            let readable = try ClientProcess(["subscribe", url, "--devices", "veh-1"])
            let line = await readable.stdout.firstLine(containing: "veh-1", within: .seconds(10))
            #expect(line?.contains("52.52") == true && line?.contains("seq 1") == true)
            readable.signal(SIGINT)
            #expect(await readable.exitStatus(within: .seconds(10)) == 0)

            let json = try ClientProcess(["subscribe", url, "--devices", "veh-1", "--json"])
            _ = await json.stdout.firstLine(containing: "\"op\":\"loc\"", within: .seconds(10))
            for text in json.stdout.text.split(separator: "\n") {
                #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) is [String: Any], "\(text)")
            }
            await expectQuits(json)
        }

        @Test("subscribe writes its status lines (subscribed, unsubscribed) to stderr and only locations to stdout")
        func statusOnStderr() async throws {
            let server = try await ServerHarness()
            let url = server.url("/v1/stream")
            try expectSucceeds(["publish", url, "--device", "veh-1", "--lat", "1", "--lon", "2"])
            let viewer = try ClientProcess(["subscribe", url, "--devices", "veh-1"])
            #expect(await viewer.stderr.firstLine(containing: "subscribed sub-1", within: .seconds(10)) != nil)
            #expect(await viewer.stdout.firstLine(containing: "veh-1", within: .seconds(10)) != nil)
            viewer.type("unsub")
            #expect(await viewer.stderr.firstLine(containing: "unsubscribed sub-1", within: .seconds(10)) != nil)
            await expectQuits(viewer)
            let stdout = viewer.stdout.text.split(separator: "\n")
            #expect(stdout.count == 1 && stdout.allSatisfy { $0.contains("veh-1") && $0.contains("seq ") }, "\(stdout)")
        }

        @Test("stdin switches the subscription in place")
        func interactiveSwitch() async throws {
            let server = try await ServerHarness()
            let url = server.url("/v1/stream")
            for device in ["veh-1", "veh-2"] {
                try expectSucceeds(["publish", url, "--device", device, "--lat", "1", "--lon", "2"])
            }
            let viewer = try ClientProcess(["subscribe", url, "--devices", "veh-1", "--json"])
            #expect(await viewer.stdout.firstLine(containing: "\"device\":\"veh-1\"", within: .seconds(10)) != nil)
            viewer.type("sub veh-2")
            let switched = await viewer.stdout.firstLine(containing: "\"device\":\"veh-2\"", within: .seconds(10))
            #expect(switched != nil)
            let lines = viewer.stdout.text.split(separator: "\n")
            let ack = lines.lastIndex { $0.contains("\"op\":\"subscribed\"") } ?? lines.endIndex
            #expect(lines[ack...].allSatisfy { !$0.contains("\"device\":\"veh-1\"") })
            await expectQuits(viewer)
        }

        @Test("simulate publishes moving devices for a bounded time")
        func simulate() async throws {
            let server = try await ServerHarness()
            let url = server.url("/v1/stream")
            try expectSucceeds(["simulate", url, "--devices", "20", "--rate", "5", "--duration", "2", "--seed", "7"])
            let device = try RawHTTPResponse.fetch(port: server.port, path: "/v1/devices/sim-1")
            #expect(device.status == 200)
            let json = try JSONSerialization.jsonObject(with: Data(device.body.utf8)) as? [String: Any]
            #expect((json?["seq"] as? Int ?? 0) >= 5)
        }

        @Test("subscribe reconnects after a server restart and resumes with since, without duplicates")
        func reconnectResumes() async throws {
            var server = try await ServerHarness()
            let port = server.port
            let url = server.url("/v1/stream")
            let viewer = try ClientProcess(["subscribe", url, "--devices", "veh-1", "--json"])
            for _ in 0..<3 {
                try expectSucceeds(["publish", url, "--device", "veh-1", "--lat", "1", "--lon", "2"])
            }
            #expect(await viewer.stdout.firstLine(containing: "\"seq\":3", within: .seconds(10)) != nil)
            #expect(await server.stop() == 0)
            server = try await ServerHarness(["--port", "\(port)"])
            #expect(await viewer.stderr.firstLine(containing: "since", within: .seconds(20)) != nil)
            for _ in 0..<2 {
                try expectSucceeds(["publish", url, "--device", "veh-1", "--lat", "3", "--lon", "4"])
            }
            #expect(await viewer.stdout.firstLine(containing: "\"lat\":3", within: .seconds(10)) != nil)
            let seqs = viewer.stdout.text.split(separator: "\n").compactMap { line -> String? in
                guard line.contains("\"op\":\"loc\""),
                    let range = line.range(of: #""seq":\d+"#, options: .regularExpression)
                else { return nil }
                return "\(line.contains("\"lat\":3") ? "new" : "old")-\(line[range])"
            }
            #expect(Set(seqs).count == seqs.count, "no duplicate frames: \(seqs)")
            await expectQuits(viewer)
        }

        @Test(
            "usage errors exit 2 with a message",
            arguments: [
                ["subscribe"], ["publish", "ws://127.0.0.1:1/v1/stream"], ["bogus"],
                ["subscribe", "ws://127.0.0.1:1", "--devices", "a/b"],
            ])
        func usageErrors(arguments: [String]) throws {
            let result = try CommandResult.run(client, arguments)
            #expect(result.status == 2)
            #expect(!result.stderr.isEmpty)
        }
    }
}

extension EndToEnd.ClientCommandTests {
    @Test("bench: a small bounded churn run reports every field, with zero stale frames")
    func benchChurn() async throws {
        let server = try await ServerHarness(ServerHarness.floodLimits)
        let result = try CommandResult.run(
            ServerHarness.binDirectory.appendingPathComponent("stream-client"),
            [
                "bench", server.url("/v1/stream"), "--scenario", "churn", "--subscribers", "20", "--devices", "10",
                "--per-subscriber", "3", "--rate", "500", "--switch-ms", "200", "--duration", "2",
                "--server-pid", "\(server.pid)", "--clients", "2",
            ])
        #expect(result.status == 0, "\(result.stderr)")
        let line = result.stdout.split(separator: "\n").last { $0.hasPrefix("{") } ?? ""
        let report = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        for field in [
            "scenario", "conditions", "delivered_fps", "expected_fps", "latency_ms", "missing", "seq_gaps",
            "out_of_order", "duplicates", "stale_after_ack", "switch_ack_ms", "connects_per_s", "errors",
            "disconnects", "server_cpu_percent", "server_rss_kib",
        ] {
            #expect(report[field] != nil, "\(field) in the bench report")
        }
        #expect(report["stale_after_ack"] as? Int == 0)
        #expect((report["delivered_fps"] as? Double ?? 0) > 0)
        // Over two client threads, every switch sent is acknowledged.
        let sent = report["switches_sent"] as? Int ?? 0
        let acknowledged = (report["switch_ack_ms"] as? [String: Any])?["count"] as? Int
        #expect(sent >= 20 && acknowledged == sent, "\(sent) switches sent, \(acknowledged ?? 0) acknowledged")
        let usage = try CommandResult.run(
            ServerHarness.binDirectory.appendingPathComponent("stream-client"),
            ["bench", server.url("/v1/stream"), "--scenario", "sideways"])
        #expect(usage.status == 2 && usage.stderr.contains("--scenario"))
    }
}
