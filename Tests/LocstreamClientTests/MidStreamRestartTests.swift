import Foundation
import Locking
import LocstreamClient
import TestSupport
import Testing

extension ClientEndToEndTests {
    /// A server killed while a sequence takes a live flow, and restarted while a publisher
    /// goes on: every acknowledged seq is delivered once or lies in a reported gap.
    @Suite("restart mid-stream")
    struct MidStreamRestartTests {
        @Test(
            "SIGKILL during a flow, restart, publishing on: no duplicate, every acknowledged seq delivered or in a gap",
            .timeLimit(.minutes(1)))
        func restartDuringFlow() async throws {
            let directory = try TemporaryDirectory(prefix: "locstream-client")
            let arguments = ClientEndToEndTests.durableServer(in: directory, historySize: 5)
            var server = try await ServerHarness(arguments)
            let port = server.port
            let gate = TokenGate()
            let viewing = ClientEndToEndTests.quickReconnects { try await gate.token() }
            let publishing = ClientEndToEndTests.quickReconnects { try TestTokens.make() }
            let acknowledged = SeqLog()
            try await ClientEndToEndTests.withClient(of: server, configuration: publishing) { publisher in
                try await ClientEndToEndTests.withClient(of: server, configuration: viewing) { viewer in
                    let flow = Task {
                        while !Task.isCancelled {
                            if let seqs = try? await publisher.publish([testLocation("m-1")]) {
                                acknowledged.append(seqs)
                            }
                            try? await Task.sleep(for: .milliseconds(5))
                        }
                    }
                    defer { flow.cancel() }
                    var updates = viewer.locations(of: ["m-1"]).makeAsyncIterator()
                    var seen = try await updates.collect(until: Self.locations(20))

                    await gate.shut()
                    _ = await server.stop(signal: SIGKILL)
                    seen += try await updates.collect { if case .reconnecting = $0 { true } else { false } }
                    await gate.held()
                    server = try await ServerHarness(arguments + ["--port", "\(port)"])
                    let restartedAt = acknowledged.count
                    // Thirty acknowledged while the viewer waits for its token; history keeps five.
                    while acknowledged.count < restartedAt + 30 {
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    await gate.open()
                    seen += try await updates.collect(until: \.endsOpening)
                    seen += try await updates.collect(until: Self.locations(10))
                    flow.cancel()
                    await flow.value
                    let published = acknowledged.all
                    let last = try #require(published.last)
                    if !seen.contains(where: { $0.location?.seq == last }) {
                        seen += try await updates.collect { $0.location?.seq == last }
                    }

                    let delivered = seen.compactMap(\.location?.seq)
                    let gaps = seen.compactMap { update -> [SeqGap]? in
                        if case .resumed(let gaps) = update { Array(gaps.values) } else { nil }
                    }.flatMap { $0 }
                    #expect(delivered == delivered.sorted() && Set(delivered).count == delivered.count, "\(delivered)")
                    let first = try #require(delivered.first)
                    let unaccounted = published.filter { seq in
                        seq >= first && !delivered.contains(seq) && !gaps.contains { $0.contains(seq) }
                    }
                    #expect(unaccounted == [], "acknowledged, neither delivered nor in a gap")
                    let missed = published.filter { seq in gaps.contains { $0.contains(seq) } }
                    #expect(missed.count >= 25, "the gap holds what history no longer had: \(missed.count)")
                    #expect(missed.allSatisfy { !delivered.contains($0) }, "a seq in a gap was never delivered")
                }
            }
            _ = await server.stop()
        }

        /// True at the `count`-th location it is shown.
        private static func locations(_ count: Int) -> (LocationUpdate) -> Bool {
            let seen = Counter()
            return { update in update.location != nil && seen.increment() == count }
        }
    }
}

/// The seqs a publisher got back, in order, shared with the test's task.
private final class SeqLog: Sendable {
    private let seqs = Locked<[UInt64]>([])

    func append(_ more: [UInt64]) { seqs.withLock { $0 += more } }
    var count: Int { seqs.withLock { $0.count } }
    var all: [UInt64] { seqs.withLock { $0 } }
}
