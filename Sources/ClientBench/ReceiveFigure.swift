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

    /// Where the locations come from.
    enum Source: Sendable {
        /// Live updates of these devices, published by a load that the script runs.
        case live(devices: [String])
        /// The snapshot of an area that holds stored devices and gets no live updates,
        /// subscribed again (the server's switch) as soon as the whole of it has arrived.
        case snapshots(Area, devices: Int)

        /// How many devices the locations come from.
        var devices: Int {
            switch self {
            case .live(let devices): devices.count
            case .snapshots(_, let devices): devices
            }
        }
    }

    let url: String
    let source: Source
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
            {"figure":"receive","receiver":"\(receiver.rawValue)","devices":\(source.devices),\
            "seconds":\(rounded(elapsed)),"elements":\(elements),"elements_per_s":\(rounded(Double(elements) / elapsed)),\
            "cpu_percent":\(cpuSeconds.map { rounded($0 / elapsed * 100) } ?? "null"),\
            "elements_per_cpu_s":\(perCPUSecond.map { rounded($0) } ?? "null"),\
            "rss_kib":\(sampler.residentKiB().map(String.init) ?? "null")}
            """
    }

    private func receiveLibrary(_ webSockets: WebSocketClient, count: Count) async throws {
        let client = LocstreamClient(transport: LWSTransport(client: webSockets, url: url))
        switch source {
        case .live(let devices):
            for try await update in client.locations(of: devices, options: SubscriptionOptions(snapshot: false)) {
                if case .location = update { count.value.add(1, ordering: .relaxed) }
            }
        case .snapshots(let area, _):
            // Each pass is a new sequence on the same connection: a switch, one message.
            while !Task.isCancelled {
                for try await update in client.locations(in: area) {
                    if case .location = update { count.value.add(1, ordering: .relaxed) }
                    if case .snapshotEnd = update { break }
                }
            }
        }
    }

    private func receiveRaw(_ webSockets: WebSocketClient, count: Count, batched: Bool) async throws {
        var options = ClientConnectOptions()
        options.subprotocol = "locstream.v1"
        let connection = try await webSockets.connect(to: url, options: options)
        defer { connection.close(code: 1000) }
        var reader = RawReader(source: source, connection: connection)
        reader.subscribe()
        guard batched else {
            for await message in connection.messages {
                count.value.add(try reader.read(message), ordering: .relaxed)
            }
            return
        }
        var messages = connection.messages.makeAsyncIterator()
        while let batch = await messages.nextBatch() {
            var locs = 0
            for message in batch { locs += try reader.read(message) }
            count.value.add(locs, ordering: .relaxed)
        }
    }
}

/// The raw receivers' side of the protocol: subscribes, counts `loc` frames with the
/// bench's scanner, and for snapshots subscribes again (a new `sub`) once all of the
/// last snapshot, as many frames as its `subscribed` announced, has arrived.
private struct RawReader {
    let source: ReceiveFigure.Source
    let connection: WebSocketConnection
    private var pass = 0
    private var snapshotLeft: Int?

    init(source: ReceiveFigure.Source, connection: WebSocketConnection) {
        self.source = source
        self.connection = connection
    }

    mutating func subscribe() {
        pass += 1
        snapshotLeft = nil
        let request =
            switch source {
            case .live(let devices): SubscribeRequest(sub: "raw", target: .devices(devices), snapshot: false)
            case .snapshots(let area, _): SubscribeRequest(sub: "raw-\(pass)", target: .area(area))
            }
        connection.send(OutboundFrame(body: ClientMessage.subscribe(request).encoded()))
    }

    /// The number of `loc` frames in `message` (0 or 1).
    mutating func read(_ message: InboundMessage) throws -> Int {
        switch LocFrameScanner.scan(message.bytes) {
        case .loc:
            guard case .snapshots = source, let left = snapshotLeft else { return 1 }
            snapshotLeft = left - 1
            if left == 1 { subscribe() }
            return 1
        case .control:
            guard case .snapshots = source,
                case .subscribed(let sub, _, let snapshot) = try ServerMessage.decode(message.bytes),
                sub == "raw-\(pass)"
            else { return 0 }
            guard snapshot > 0 else { throw FigureFailure("the area's snapshot is empty") }
            snapshotLeft = snapshot
            return 0
        case .malformed:
            return 0
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
