import LocstreamProtocol
import WebSocketTransport

/// Opens many connections at once, at most `parallel` handshakes in flight, and times it.
struct ConnectWave: Sendable {
    /// What a wave achieved.
    struct Outcome: Sendable {
        /// The connections by number; nil where connecting failed or was not tried in time.
        var connections: [WebSocketConnection?]
        /// How many failed (refused, timed out, or not started before the deadline).
        var failures: Int
        /// From the first connect to the last handshake.
        var seconds: Double
        /// The first few failure messages.
        var failureSamples: [String]

        /// Handshakes completed per second.
        var connectsPerSecond: Double {
            let done = connections.count - failures
            return seconds > 0 ? Double(done) / seconds : 0
        }
    }

    let connector: BenchConnector
    /// Handshakes in flight at most.
    let parallel: Int

    /// Opens connections `range` (`publishers`: to the publish URL); `opened` runs for
    /// each as soon as it is open (to send its subscribe). Stops starting new ones once
    /// `deadline` has passed.
    func open(
        _ range: Range<Int>, deadline: ContinuousClock.Instant, publishers: Bool = false,
        opened: @escaping @Sendable (Int, WebSocketConnection) -> Void = { _, _ in }
    ) async -> Outcome {
        let started = ContinuousClock.now
        var connections = [WebSocketConnection?](repeating: nil, count: range.count)
        var failures = 0
        var samples: [String] = []
        await withTaskGroup(of: (Int, Result<WebSocketConnection, TransportError>).self) { group in
            var next = range.lowerBound
            func startNext() {
                guard next < range.upperBound, ContinuousClock.now < deadline else { return }
                let index = next
                next += 1
                group.addTask {
                    do throws(TransportError) {
                        let connection = try await connector.connect(index, publisher: publishers)
                        opened(index, connection)
                        return (index, .success(connection))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            for _ in 0..<min(parallel, range.count) { startNext() }
            while let (index, result) = await group.next() {
                switch result {
                case .success(let connection): connections[index - range.lowerBound] = connection
                case .failure(let error):
                    failures += 1
                    if samples.count < 3 { samples.append(error.description) }
                }
                startNext()
            }
        }
        let notTried = connections.count - failures - connections.lazy.compactMap { $0 }.count
        return Outcome(
            connections: connections, failures: failures + notTried,
            seconds: started.duration(to: .now).seconds, failureSamples: samples)
    }
}
