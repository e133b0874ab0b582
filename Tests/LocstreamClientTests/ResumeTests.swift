import Foundation
import LocstreamClient
import TestSupport
import Testing

extension ClientEndToEndTests {
    /// A server killed and restarted on the same data directory: the sequence reconnects,
    /// resumes with `since`, and reports what history could no longer replay.
    @Suite("reconnect and resume")
    struct ResumeTests {
        @Test(
            "SIGKILL, restart on the same --data-dir: no duplicate, the reported gap holds exactly the seqs missed",
            .timeLimit(.minutes(1)))
        func resumeAfterRestart() async throws {
            let directory = try TemporaryDirectory(prefix: "locstream-client")
            let arguments = ClientEndToEndTests.durableServer(in: directory, historySize: 2)
            var server = try await ServerHarness(arguments)
            let port = server.port
            let gate = TokenGate()
            let configuration = ClientEndToEndTests.quickReconnects { try await gate.token() }
            try await ClientEndToEndTests.withClient(of: server, configuration: configuration) { viewer in
                let before = try await viewer.publish([testLocation("r-1"), testLocation("r-1")])
                var updates = viewer.locations(of: ["r-1"]).makeAsyncIterator()
                let opening = try await updates.collect(until: \.endsOpening)
                #expect(opening == [.location(located("r-1", seq: before[1])), .snapshotEnd])

                await gate.shut()
                _ = await server.stop(signal: SIGKILL)
                let lost = try await updates.collect { if case .reconnecting = $0 { true } else { false } }
                #expect(lost.count == 1, "nothing but the reconnect: \(lost)")
                await gate.held()  // the reconnect waits for its token

                server = try await ServerHarness(arguments + ["--port", "\(port)"])
                // Five updates while the viewer waits for its token; history keeps the last two.
                let publishing = ClientConfiguration { try TestTokens.make() }
                let missed = try await ClientEndToEndTests.withClient(of: server, configuration: publishing) {
                    publisher in
                    try await publisher.publish(Array(repeating: testLocation("r-1"), count: 5))
                }
                await gate.open()
                let resumed = try await updates.collect(until: \.endsOpening)
                let replayed = resumed.compactMap(\.location?.seq)
                guard case .resumed(let gaps)? = resumed.last else {
                    Issue.record("expected resumed, got \(resumed)")
                    return
                }
                #expect(replayed == Array(missed.suffix(2)), "the newest two, replayed from history")
                let gap = try #require(gaps["r-1"])
                #expect(gap.lastSeen == before[1] && gap.next == missed[3])
                #expect(missed.prefix(3).allSatisfy(gap.contains), "every seq not replayed is in the gap")

                let live = try await viewer.publish([testLocation("r-1")])
                let next = try await updates.next()
                #expect(next == .location(located("r-1", seq: live[0])))
            }
            _ = await server.stop()
        }
    }
}

extension ClientEndToEndTests {
    /// A server with auth that keeps its data in `directory` (so a restart keeps seqs and
    /// history: `historySize` updates per device) and does not limit publishing.
    static func durableServer(in directory: TemporaryDirectory, historySize: Int) -> [String] {
        TestTokens.serverOptions() + ServerHarness.floodLimits + [
            "--data-dir", directory.url.appendingPathComponent("data").path, "--history-size", "\(historySize)",
        ]
    }

    /// A configuration with `tokens` that reconnects within 20 to 200 ms.
    static func quickReconnects(_ tokens: @escaping ClientConfiguration.TokenProvider) -> ClientConfiguration {
        var configuration = ClientConfiguration(tokenProvider: tokens)
        configuration.reconnect = ReconnectPolicy(initial: .milliseconds(20), cap: .milliseconds(200))
        return configuration
    }
}
