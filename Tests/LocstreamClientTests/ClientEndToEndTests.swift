import Foundation
import LocstreamClient
import LocstreamClientLWS
import TestSupport
import Testing
import WebSocketTransport

/// The library against a real `stream-server` on a loopback port, one test at a time (each
/// starts server processes; the machine has two cores).
@Suite(.serialized) enum ClientEndToEndTests {
    /// Runs `body` with a `LocstreamClient` on the lws transport, connecting to `server`'s
    /// `/v1/stream` (by port: a server restarted on the same port is reached again).
    static func withClient<Result>(
        of server: ServerHarness, configuration: ClientConfiguration = ClientConfiguration(),
        _ body: (LocstreamClient) async throws -> Result
    ) async throws -> Result {
        try await withClient(url: server.url("/v1/stream"), configuration: configuration, body)
    }

    /// Runs `body` with a `LocstreamClient` on the lws transport, connecting to `url` and
    /// trusting `caFile` for `wss://`.
    static func withClient<Result>(
        url: String, caFile: String? = nil, configuration: ClientConfiguration = ClientConfiguration(),
        _ body: (LocstreamClient) async throws -> Result
    ) async throws -> Result {
        let webSockets = try await WebSocketClient.start(caFile: caFile)
        let client = LocstreamClient(
            transport: LWSTransport(client: webSockets, url: url), configuration: configuration)
        return try await withCleanup {
            try await body(client)
        } cleanup: {
            client.closeIdleConnections()
            await webSockets.shutdown()
        }
    }

    /// A configuration that keeps a freed connection's subscription for 30 s, so that a
    /// switch never depends on how quickly the next sequence starts.
    static var patientSwitch: ClientConfiguration {
        var configuration = ClientConfiguration()
        configuration.switchWindow = .seconds(30)
        return configuration
    }
}

extension LocationUpdates {
    /// Iterates a subscription of its own until `isLast` holds for an update (included);
    /// the subscription ends on return.
    func collect(until isLast: (LocationUpdate) -> Bool) async throws(LocstreamError) -> [LocationUpdate] {
        var iterator = makeAsyncIterator()
        return try await iterator.collect(until: isLast)
    }
}

extension LocationUpdates.Iterator {
    /// The updates until `isLast` holds for one (included), or until the sequence ends.
    mutating func collect(until isLast: (LocationUpdate) -> Bool) async throws(LocstreamError) -> [LocationUpdate] {
        var updates: [LocationUpdate] = []
        while let update = try await next() {
            updates.append(update)
            if isLast(update) { break }
        }
        return updates
    }
}

extension LocationUpdate {
    /// Whether this is the end of an opening: `snapshotEnd`, or `resumed` after a reconnect.
    var endsOpening: Bool {
        switch self {
        case .snapshotEnd, .resumed: true
        default: false
        }
    }
}

extension ServerHarness {
    /// Whether the `/metrics` sample `name` reads `value` within `timeout` (checked every 20 ms).
    func metric(_ name: String, reaches value: Int, within timeout: Duration = .seconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        repeat {
            if (try? metrics()[name]) == value { return true }
            try? await Task.sleep(for: .milliseconds(20))
        } while ContinuousClock.now < deadline
        return false
    }
}
