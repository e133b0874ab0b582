import LocstreamProtocol
import Testing

@testable import Client
@testable import LoadBench

/// The usage error `BenchSettings` throws for `arguments`, or nil.
private func usageError(_ arguments: [String]) -> String? {
    do {
        _ = try BenchSettings(arguments: arguments)
        return nil
    } catch {
        return error.description
    }
}

/// The command line of `stream-client bench`.
@Suite("bench options")
struct BenchSettingsTests {
    private let url = "ws://127.0.0.1:8080"

    @Test("defaults")
    func defaults() throws {
        let settings = try BenchSettings(arguments: [url, "--scenario", "fanout"])
        #expect(settings.scenario == .fanout)
        #expect(settings.connection.url == "ws://127.0.0.1:8080/v1/stream")
        #expect(settings.duration == 10 && settings.subscribers == 100 && settings.perSubscriber == 1)
        #expect(settings.connectionsNeeded == 101)
        #expect(settings.serverPID == nil && settings.out == nil)
    }

    @Test(
        "usage errors name the option",
        arguments: [
            ([], "URL is missing"),
            (["ws://127.0.0.1:8080"], "--scenario"),
            (["ws://127.0.0.1:8080", "--scenario", "flood"], "--scenario"),
            (["ws://127.0.0.1:8080", "--scenario", "fanout", "--duration", "0"], "--duration"),
            (["ws://127.0.0.1:8080", "--scenario", "fanout", "--duration", "1.5"], "--duration"),
            (
                ["ws://127.0.0.1:8080", "--scenario", "fanout", "--devices", "3", "--per-subscriber", "4"],
                "--per-subscriber"
            ),
            (["ws://127.0.0.1:8080", "--scenario", "fanout", "--attrs-bytes", "5"], "--attrs-bytes"),
            (["ws://127.0.0.1:8080", "--scenario", "fanout", "--rate", "fast"], "--rate"),
            (["ws://127.0.0.1:8080", "--scenario", "fanout", "--server-pid", "abc"], "--server-pid"),
            (["ws://127.0.0.1:8080", "--scenario", "fanout", "--server-pid", "2147483646"], "--server-pid"),
            (["ws://127.0.0.1:8080", "--scenario", "fanout", "--prefix", "a b"], "--prefix"),
            (["ws://127.0.0.1:8080", "--scenario", "fanout", "--bogus"], "--bogus"),
            (["http://127.0.0.1:8080", "--scenario", "fanout"], "URL"),
        ])
    func usage(arguments: [String], names: String) {
        let message = usageError(arguments)
        #expect(message?.contains(names) == true, "\(message ?? "no error")")
    }

    @Test("a usage error exits with status 2")
    func exitStatus() async {
        #expect(await StreamClient.run(arguments: ["bench", url], environment: [:]) == ExitStatus.usage)
        #expect(await StreamClient.run(arguments: ["bench", "--help"], environment: [:]) == ExitStatus.success)
    }
}
