import Foundation
import Glibc
import LocstreamProtocol
import TestSupport
import Testing

extension EndToEnd {
    /// The store's writer commits gathered updates at `SCHED_IDLE`, beside the fan-out,
    /// and runs at nice 5 when somebody waits for it; a process that could not come back
    /// from `SCHED_IDLE` never goes there.
    @Suite("store writer priority")
    struct StoreWriterPriorityTests {
        /// `SCHED_IDLE` from `<linux/sched.h>`.
        static let idlePolicy: Int32 = 5

        @Test("gathered updates are committed at SCHED_IDLE, and an acknowledged publish at nice 5")
        func followsTheWork() async throws {
            guard Self.maySetNice else {
                print("skipped: this test process has neither CAP_SYS_NICE nor an RLIMIT_NICE of 15")
                return
            }
            let temporary = try TemporaryDirectory(prefix: "locstream-writer-priority")
            let server = try await ServerHarness(["--data-dir", temporary.url.appendingPathComponent("data").path])
            let writer = try #require(server.threads.first { $0.name == "store-writer" }?.id)
            try await withWebSocketClient { client in
                let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
                publisher.send(.publish([testLocation("prio-1")], ack: false))
                let idle = await eventually(within: .seconds(10)) { sched_getscheduler(writer) == Self.idlePolicy }
                #expect(idle, "the writer commits the gathered update in the background")
                publisher.send(.publish([testLocation("prio-1", lat: 52.6)], ack: true))
                #expect(await publisher.next() == .published(count: 1))
                #expect(sched_getscheduler(writer) == SCHED_OTHER)
                #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(writer)) == 5)
            }
            withExtendedLifetime(temporary) {}
        }

        @Test("without CAP_SYS_NICE or RLIMIT_NICE the writer stays at nice 5, and the log says why")
        func staysWithoutTheRight() async throws {
            let temporary = try TemporaryDirectory(prefix: "locstream-writer-unprivileged")
            let data = temporary.url.appendingPathComponent("data")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: data.path)
            let binaries = try Self.unprivilegedServer(in: temporary.url.appendingPathComponent("bin"))
            let server = try await ServerHarness(
                ["--data-dir", data.path, "--log-level", "info"], binDirectory: binaries)
            #expect(await server.logLine(containing: "store writer stays at nice 5") != nil)
            let writer = try #require(server.threads.first { $0.name == "store-writer" }?.id)
            try await withWebSocketClient { client in
                let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
                publisher.send(.publish([testLocation("prio-2")], ack: false))
                let committed = await eventually(within: .seconds(10)) {
                    ((try? server.metrics()["locstream_store_commits_total"]) ?? 0) >= 1
                }
                #expect(committed)
                #expect(sched_getscheduler(writer) == SCHED_OTHER)
                #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(writer)) == 5)
            }
            withExtendedLifetime(temporary) {}
        }

        /// Whether this process may raise a thread's priority back (root with
        /// `CAP_SYS_NICE`, as CI runs): bit 23 of the effective capabilities.
        static var maySetNice: Bool {
            guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("CapEff:") }),
                let mask = UInt64(line.dropFirst("CapEff:".count).trimmingCharacters(in: .whitespaces), radix: 16)
            else { return false }
            return mask & (1 << 23) != 0
        }

        /// A `stream-server` in `directory` that runs the real one as `nobody`, with no
        /// capabilities and an `RLIMIT_NICE` of 0 (util-linux `prlimit` and `setpriv`).
        static func unprivilegedServer(in directory: URL) throws -> URL {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let real = ServerHarness.binDirectory.appendingPathComponent("stream-server").path
            let script = """
                #!/bin/sh
                exec prlimit --nice=0:0 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
                  '\(real)' "$@"
                """
            let wrapper = directory.appendingPathComponent("stream-server")
            try script.write(to: wrapper, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper.path)
            // nobody must reach the binary and its data directory.
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o755], ofItemAtPath: directory.deletingLastPathComponent().path)
            return directory
        }
    }
}
