import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// Issue 15: the default single node remembers seqs, last positions and history, on the
    /// real server with `--data-dir`. The cases are the suites nested in it, one file each:
    /// a SIGKILL mid-flood and a lost data directory (`StoreCrashTests`), a clean restart
    /// (`StoreRestartTests`), bad storage refused at start (`StoreRefusalTests`), a full
    /// disk (`StoreDiskFullTests`). What they share is here.
    @Suite("store durability")
    struct StoreDurabilityTests {
        /// Updates kept per device: more than any of these tests publishes for one device,
        /// so a `since` from 0 replays all of them.
        static let historySize = 5_000

        /// A server keeping its store in `directory` and `history` updates per device, with
        /// the publish rate lifted.
        static func server(_ directory: String, history: Int = historySize, _ extra: [String] = []) async throws
            -> ServerHarness
        {
            try await ServerHarness(
                ["--data-dir", directory, "--history-size", "\(history)"] + ServerHarness.floodLimits + extra)
        }

        /// Runs `body` with the path of a data directory (not created yet) in a fresh
        /// temporary directory and a WebSocket client; then shuts the client down and
        /// removes the directory.
        static func withDataDirectory<Result>(_ body: (String, WebSocketClient) async throws -> Result)
            async throws -> Result
        {
            let temporary = try TemporaryDirectory(prefix: "locstream-store")
            let client = try await WebSocketClient.start()
            let result = try await withCleanup {
                try await body(temporary.url.appendingPathComponent("data").path, client)
            } cleanup: {
                await client.shutdown()
            }
            withExtendedLifetime(temporary) {}
            return result
        }

        /// What a subscribe to `device` on `server` with `since` `seq` replays (by default
        /// everything stored), on a connection of its own.
        static func history(
            of device: String, after seq: UInt64 = 0, on server: ServerHarness, client: WebSocketClient
        ) async throws -> [ReceivedLocation] {
            let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
            viewer.send(subscribe("H", [device], since: [device: seq]))
            guard case .subscribed("H", _, let count)? = await viewer.next() else {
                Issue.record("no subscribed for the history of \(device)")
                return []
            }
            var frames: [ReceivedLocation] = []
            while frames.count < count, let message = await viewer.nextRaw() {
                if let frame = ReceivedLocation(message, sub: "H") { frames.append(frame) }
            }
            #expect(frames.count == count, "\(device): \(frames.count) of \(count) replayed frames arrived")
            return frames
        }

        /// The snapshot of each of `devices` (its last known position) that a new
        /// subscriber on `server` gets.
        static func lastKnown(_ devices: [String], on server: ServerHarness, client: WebSocketClient) async throws
            -> [String: ReceivedLocation]
        {
            let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
            viewer.send(subscribe("L", devices))
            guard case .subscribed("L", _, let count)? = await viewer.next() else {
                Issue.record("no subscribed for the snapshot")
                return [:]
            }
            var snapshot: [String: ReceivedLocation] = [:]
            while snapshot.count < count, let message = await viewer.nextRaw() {
                if let frame = ReceivedLocation(message, sub: "L") { snapshot[frame.location.device] = frame }
            }
            return snapshot
        }

        /// `GET /v1/devices/{device}` on `server`: the status and the body.
        static func fetchDevice(_ device: String, on server: ServerHarness) throws -> (status: Int, body: String) {
            let response = try RawHTTPResponse.fetch(port: server.port, path: "/v1/devices/\(device)")
            return (response.status, ReceivedLocation.withoutOnline(response.body))
        }

        /// Publishes one location for each of `devices` on `server`, acknowledged, and
        /// returns each as a live subscriber received it (with the seq it was given).
        static func publishOnce(_ devices: [String], on server: ServerHarness, client: WebSocketClient)
            async throws -> [String: Location]
        {
            let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
            viewer.send(subscribe("N", devices, snapshot: false))
            #expect(await viewer.next() == .subscribed(sub: "N", restarted: false, snapshot: 0))
            let publisher = try await StreamTestClient(client, url: server.url("/v1/stream"))
            publisher.send(.publish(devices.map { testLocation($0, lat: 1, lon: 2) }, ack: true))
            #expect(await publisher.next() == .published(count: devices.count))
            var received: [String: Location] = [:]
            while received.count < devices.count, case .loc("N", let location)? = await viewer.next() {
                received[location.device] = location
            }
            return received
        }
    }
}

/// A `loc` frame as a client received it: the location, and its members as the frame
/// carried them (the body `GET /v1/devices/{id}` answers), to compare byte for byte.
struct ReceivedLocation: Equatable {
    let location: Location
    /// `{` and the members after the frame's `op` and `sub`, without a snapshot's `online`.
    let body: String

    /// The `loc` frame of subscription `sub` in `message`; nil for any other frame.
    init?(_ message: InboundMessage, sub: String) {
        guard case .loc(sub, let location)? = try? ServerMessage.decode(message.bytes) else { return nil }
        self.location = location
        body = Self.withoutOnline(
            "{" + String(decoding: message.bytes.dropFirst(LocationFrame.prefix(sub: sub).count), as: UTF8.self))
    }

    /// `text` without its `online` member (v1.1: snapshot frames end with it, and
    /// `GET /v1/devices/{id}` starts with it).
    static func withoutOnline(_ text: String) -> String {
        text.replacing(/,"online":(true|false)}$/, with: "}").replacing(/^\{"online":(true|false),/, with: "{")
    }
}
