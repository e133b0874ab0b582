import Foundation
import Locking
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

/// Publishers flooding a server with acknowledged publishes, and a watcher recording
/// every frame it delivers, for the store tests that stop a server mid-flood.
///
/// Each publisher has devices of its own and publishes one location for each of them
/// (one `publish` with `"ack":true`) as soon as the previous one is acknowledged; one
/// more publishes its device with `POST /v1/locations`, acknowledged by its 202. Every
/// publish has its own `ts`, which identifies its locations in the store afterwards.
final class StoreFlood: Sendable {
    /// What the flood saw, per device.
    struct Record: Sendable {
        /// The `ts` of each acknowledged location, in publish order.
        var acked: [String: [Int64]] = [:]
        /// Every location the watcher received, in arrival order.
        var delivered: [String: [Location]] = [:]
        /// Frames the watcher received at or below a seq it had already seen for the device.
        var outOfOrder = 0

        /// The highest seq the watcher saw for `device` (0 for none).
        func highestSeq(_ device: String) -> UInt64 { delivered[device]?.last?.seq ?? 0 }

        /// The fewest acknowledged locations of any of `devices`.
        func fewestAcks(_ devices: [String]) -> Int { devices.map { acked[$0]?.count ?? 0 }.min() ?? 0 }
    }

    /// Every device published: `publishers` groups of `devicesEach`, then the one posted.
    let devices: [String]
    private let record: Locked<Record>
    private let stopping: Locked<Bool>
    private let pumps: [Task<Void, Never>]
    private let watching: Task<Void, Never>

    /// Starts the watcher on `server` (live updates of every device) and, once it is
    /// subscribed, `publishers` publishers of `devicesEach` devices named `prefix-P-D`,
    /// and the poster of `prefix-http`.
    init(
        on server: ServerHarness, client: WebSocketClient, publishers: Int = 4, devicesEach: Int = 3,
        prefix: String = "veh"
    ) async throws {
        let groups = (0..<publishers).map { publisher in (0..<devicesEach).map { "\(prefix)-\(publisher)-\($0)" } }
        let posted = "\(prefix)-http"
        devices = groups.flatMap { $0 } + [posted]
        let record = Locked(Record())
        self.record = record
        let stopping = Locked(false)
        self.stopping = stopping
        let subscribed = Locked(false)
        let watcher = try await client.connect(to: server.url("/v1/stream"))
        watcher.send(OutboundFrame(body: subscribe("flood", devices, snapshot: false).encoded()))
        watching = Task {
            for await message in watcher.messages {
                switch try? ServerMessage.decode(message.bytes) {
                case .subscribed?: subscribed.withLock { $0 = true }
                case .loc(_, let location)?:
                    record.withLock { record in
                        if location.seq <= record.highestSeq(location.device) { record.outOfOrder += 1 }
                        record.delivered[location.device, default: []].append(location)
                    }
                default: break
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !subscribed.withLock({ $0 }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        var pumps: [Task<Void, Never>] = []
        for group in groups {
            let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
            pumps.append(Self.pump(publisher, group, record: record, stopping: stopping))
        }
        pumps.append(Self.post(posted, port: server.port, record: record, stopping: stopping))
        self.pumps = pumps
    }

    deinit {
        for pump in pumps { pump.cancel() }
        watching.cancel()
    }

    /// Publishes for `group` from `publisher` until `stopping`, the connection ends or a
    /// publish is not acknowledged; records each acknowledged publish in `record`.
    private static func pump(
        _ publisher: sending StreamTestClient, _ group: [String], record: Locked<Record>, stopping: Locked<Bool>
    ) -> Task<Void, Never> {
        Task {
            var count: Int64 = 0
            while !stopping.withLock({ $0 }) {
                count += 1
                let ts = Self.firstTS + count
                let lat = 50 + Double(count % 1000) / 1000
                publisher.send(
                    .publish(
                        group.enumerated().map { testLocation($1, lat: lat, lon: 13 + Double($0) / 100, ts: ts) },
                        ack: true))
                guard await publisher.next(within: .seconds(10)) == .published(count: group.count) else { return }
                record.withLock { record in
                    for device in group { record.acked[device, default: []].append(ts) }
                }
            }
        }
    }

    /// Posts `device` to `POST /v1/locations` on `port` until `stopping` or a post is not
    /// answered 202; records each accepted post in `record`.
    private static func post(_ device: String, port: Int, record: Locked<Record>, stopping: Locked<Bool>)
        -> Task<Void, Never>
    {
        Task {
            var ts = Self.firstTS
            while !stopping.withLock({ $0 }) {
                ts += 1
                let body = #"[{"device":"\#(device)","lat":51,"lon":\#(ts % 1000),"ts":\#(ts)}]"#
                let response = try? RawHTTPResponse.fetch(port: port, method: "POST", path: "/v1/locations", body: body)
                guard response?.status == 202 else { return }
                record.withLock { $0.acked[device, default: []].append(ts) }
            }
        }
    }

    /// The `ts` of the flood's first publish, less one.
    static let firstTS: Int64 = 1_764_421_200_000

    /// Waits up to `timeout` until every device has `count` acknowledged locations; whether it has.
    func waitForAcks(perDevice count: Int, within timeout: Duration = .seconds(20)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while record.withLock({ $0.fewestAcks(devices) }) < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return record.withLock { $0.fewestAcks(devices) } >= count
    }

    /// Stops the publishers (each after its publish in flight is answered, or its
    /// connection ended), lets the watcher take what is still coming (until 300 ms pass
    /// without a frame), and returns what the flood saw.
    func stop() async -> Record {
        stopping.withLock { $0 = true }
        for pump in pumps { await pump.value }
        var seen = -1
        while seen != record.withLock({ $0.delivered.values.reduce(0) { $0 + $1.count } }) {
            seen = record.withLock { $0.delivered.values.reduce(0) { $0 + $1.count } }
            try? await Task.sleep(for: .milliseconds(300))
        }
        watching.cancel()
        return record.withLock { $0 }
    }
}
