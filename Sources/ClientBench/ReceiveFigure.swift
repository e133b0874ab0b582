import LoadBench
import LocstreamClient
import LocstreamClientLWS
import Synchronization
import WebSocketTransport

/// How fast one consumer takes location elements: counted by the receiving task, sampled by
/// another after a second's warm-up and again `seconds` later, with this process's CPU time.
struct ReceiveFigure: Sendable {
    /// What reads the connection.
    enum Receiver: String, Sendable {
        /// A `LocstreamClient` sequence on `LWSTransport`: every frame decoded into a `Location`.
        case library
        /// The bench's path: `WebSocketConnection.messages` and `LocFrameScanner`.
        case raw
        /// The transport's floor: the connection's messages taken in batches (`nextBatch`,
        /// one wake-up per batch, as the library's reader takes them) and `LocFrameScanner`.
        case rawBatch = "raw-batch"
    }

    let url: String
    let devices: [String]
    let receiver: Receiver
    let seconds: Double

    /// Counts elements; the sampler reads it from another task.
    private final class Count: Sendable {
        let value = Atomic<Int>(0)
    }

    /// Measures; returns the JSON line.
    func run() async throws -> String {
        let webSockets = try await WebSocketClient.start(caFile: nil)
        let count = Count()
        let receiving = Task {
            switch receiver {
            case .library: try await receiveLibrary(webSockets, count: count)
            case .raw: try await receiveRaw(webSockets, count: count, batched: false)
            case .rawBatch: try await receiveRaw(webSockets, count: count, batched: true)
            }
        }
        defer { receiving.cancel() }
        let deadline = ContinuousClock.now + .seconds(30)
        while count.value.load(ordering: .relaxed) == 0 {
            guard ContinuousClock.now < deadline else { throw FigureFailure("no location arrived within 30 s") }
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .seconds(1))
        let sampler = ProcessSampler(pid: nil)
        let (start, cpuStart, first) = (ContinuousClock.now, sampler.cpu(), count.value.load(ordering: .relaxed))
        try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
        let (end, cpuEnd, last) = (ContinuousClock.now, sampler.cpu(), count.value.load(ordering: .relaxed))
        receiving.cancel()
        let elapsed = start.duration(to: end).seconds
        let elements = last - first
        guard elements > 0 else { throw FigureFailure("nothing arrived in the window: the load stopped") }
        let cpuSeconds = zip(cpuStart, cpuEnd).map {
            Double($1.ticks - $0.ticks) / Double(ProcessSampler.ticksPerSecond)
        }
        let perCPUSecond = cpuSeconds.map { $0 > 0 ? Double(elements) / $0 : 0 }
        await webSockets.shutdown()
        return """
            {"figure":"receive","receiver":"\(receiver.rawValue)","devices":\(devices.count),\
            "seconds":\(rounded(elapsed)),"elements":\(elements),"elements_per_s":\(rounded(Double(elements) / elapsed)),\
            "cpu_percent":\(cpuSeconds.map { rounded($0 / elapsed * 100) } ?? "null"),\
            "elements_per_cpu_s":\(perCPUSecond.map { rounded($0) } ?? "null"),\
            "rss_kib":\(sampler.residentKiB().map(String.init) ?? "null")}
            """
    }

    private func receiveLibrary(_ webSockets: WebSocketClient, count: Count) async throws {
        let client = LocstreamClient(transport: LWSTransport(client: webSockets, url: url))
        for try await update in client.locations(of: devices, options: SubscriptionOptions(snapshot: false)) {
            if case .location = update { count.value.add(1, ordering: .relaxed) }
        }
    }

    private func receiveRaw(_ webSockets: WebSocketClient, count: Count, batched: Bool) async throws {
        var options = ClientConnectOptions()
        options.subprotocol = "locstream.v1"
        let connection = try await webSockets.connect(to: url, options: options)
        defer { connection.close(code: 1000) }
        let request = SubscribeRequest(sub: "raw", target: .devices(devices), snapshot: false)
        connection.send(OutboundFrame(body: ClientMessage.subscribe(request).encoded()))
        guard batched else {
            for await message in connection.messages {
                if case .loc = LocFrameScanner.scan(message.bytes) { count.value.add(1, ordering: .relaxed) }
            }
            return
        }
        var messages = connection.messages.makeAsyncIterator()
        while let batch = await messages.nextBatch() {
            var locs = 0
            for message in batch {
                if case .loc = LocFrameScanner.scan(message.bytes) { locs += 1 }
            }
            count.value.add(locs, ordering: .relaxed)
        }
    }
}

/// `value` with two decimals, for the JSON line.
func rounded(_ value: Double) -> String {
    String(Double((value * 100).rounded()) / 100)
}

/// Both, when both are there.
private func zip<A, B>(_ a: A?, _ b: B?) -> (A, B)? {
    guard let a, let b else { return nil }
    return (a, b)
}
