import Foundation
import TestSupport
import Testing

extension EndToEnd.StoreDurabilityTests {
    /// `--store-cpus`: the store's writer and checkpointer run on the CPUs it lists, the
    /// service thread where the server may; a list that is not one is a usage error, and
    /// CPUs the machine does not have stop the start.
    @Suite("store: --store-cpus")
    struct StoreCPUsTests {
        @Test("the writer and the checkpointer run on the CPU given, the service thread does not, publishes are stored")
        func pinned() async throws {
            let everywhere = try allowedCPUs(of: "self")
            guard let cpu = everywhere.split(separator: ",").last?.split(separator: "-").last, everywhere != String(cpu)
            else {
                print(
                    "skipped: the tests may run on one CPU only (\(everywhere)), so a pinned thread looks like any other"
                )
                return
            }
            let directory = try TemporaryDirectory(prefix: "locstream-store-cpus")
            let data = directory.url.appendingPathComponent("data").path
            let server = try await EndToEnd.StoreDurabilityTests.server(data, ["--store-cpus", String(cpu)])
            let pinned = await eventually(within: .seconds(10)) {
                ["store-writer", "store-checkpt"].allSatisfy { name in
                    server.threads.contains {
                        $0.name == name && (try? allowedCPUs(of: "\(server.pid)/task/\($0.id)")) == String(cpu)
                    }
                }
            }
            #expect(pinned, "the store's threads run on CPU \(cpu) alone")
            let service = try #require(server.threads.first { $0.name == "lws-server" })
            #expect(try allowedCPUs(of: "\(server.pid)/task/\(service.id)") == everywhere)
            let post = try RawHTTPResponse.fetch(
                port: server.port, method: "POST", path: "/v1/locations",
                body: EndToEnd.PublishRateTests.batch(devices: ["cpus-1"]))
            #expect(post.status == 202)
            #expect(await server.stop() == 0)
            let again = try await EndToEnd.StoreDurabilityTests.server(data)
            #expect(try RawHTTPResponse.fetch(port: again.port, path: "/v1/devices/cpus-1").status == 200)
        }

        @Test(
            "a list that is not one exits 2 naming --store-cpus",
            arguments: ["", "one", "3-1", "1024", "0,,1", "-1"])
        func notAList(list: String) throws {
            let result = try CommandResult.run(
                ServerHarness.binDirectory.appendingPathComponent("stream-server"), ["--store-cpus", list])
            #expect(result.status == 2)
            #expect(result.stderr.contains("--store-cpus must list CPUs"), "\(result.stderr)")
        }

        @Test("CPUs the machine does not have: the start is refused, naming them and the directory")
        func unusable() async throws {
            guard ProcessInfo.processInfo.processorCount < 1000 else {
                print("skipped: this machine may have a CPU 1023")
                return
            }
            let directory = try TemporaryDirectory(prefix: "locstream-store-cpus")
            let data = directory.url.appendingPathComponent("data").path
            EndToEnd.StoreDurabilityTests.StoreRefusalTests.expectRefusal(
                try await ServerHarness.ending(["--data-dir", data, "--store-cpus", "1023"]), naming: data,
                saying: "its threads cannot run on CPUs 1023")
        }

    }
}
