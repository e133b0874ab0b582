import LoadBench
import LocstreamClient
import LocstreamClientLWS
import Synchronization
import WebSocketTransport

/// The client's resident memory per idle sequence: twenty sequences first (the lws client,
/// the runtime's first allocations), then `sequences` more, each iterating the updates of a
/// device nobody publishes (its own connection, its subscription live: its snapshot has
/// ended), and the growth divided by `sequences`.
struct IdleSequenceFigure: Sendable {
    let url: String
    let sequences: Int

    /// How many sequences have had their opening.
    private final class Opened: Sendable {
        let value = Atomic<Int>(0)
    }

    /// Measures; returns the JSON line.
    func run() async throws -> String {
        let webSockets = try await WebSocketClient.start(caFile: nil)
        let client = LocstreamClient(transport: LWSTransport(client: webSockets, url: url))
        let opened = Opened()
        let warmUp = 20
        var watching = try await open(warmUp, from: 0, client: client, opened: opened)
        let sampler = ProcessSampler(pid: nil)
        let before = sampler.residentKiB() ?? 0
        watching += try await open(sequences, from: warmUp, client: client, opened: opened)
        try await Task.sleep(for: .seconds(1))
        let after = sampler.residentKiB() ?? 0
        for task in watching { task.cancel() }
        client.closeIdleConnections()
        await webSockets.shutdown()
        let perSequence = Double(after - before) / Double(sequences)
        return """
            {"figure":"idle","sequences":\(sequences),"rss_before_kib":\(before),"rss_after_kib":\(after),\
            "kib_per_sequence":\(rounded(perSequence))}
            """
    }

    /// Starts `count` sequences (devices `idle-FIRST`…) and waits, at most two minutes, until
    /// each has had its opening.
    private func open(_ count: Int, from first: Int, client: LocstreamClient, opened: Opened) async throws
        -> [Task<Void, Never>]
    {
        let tasks = (first..<(first + count)).map { index in
            Task {
                let updates = client.locations(of: ["idle-\(index)"])
                do {
                    for try await update in updates where update == .snapshotEnd {
                        opened.value.add(1, ordering: .relaxed)
                    }
                } catch {
                    return
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(120)
        while opened.value.load(ordering: .relaxed) < first + count {
            guard ContinuousClock.now < deadline else {
                throw FigureFailure("only \(opened.value.load(ordering: .relaxed)) sequences opened in two minutes")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return tasks
    }
}
