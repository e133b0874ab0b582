import Foundation
import Locking
import LocstreamProtocol
import Testing
import WebSocketTransport

/// An innocent client pair beside a hostile test: a publisher sending one device's
/// position 20 times a second and a viewer subscribed to it, on their own connections.
///
/// A hostile case runs while the bystander runs; `expectUnharmed` then checks that the
/// attack did not reach it: fresh frames still arrive in seq order, `/healthz` answers
/// 200, and the server's RSS grew by less than the bound given.
package final class Bystander {
    private let server: ServerHarness
    private let client: WebSocketClient
    private let pump: Task<Void, Never>
    private let reader: Task<Void, Never>
    private let received = Locked(Tally())
    private let baselineRSSKiB: Int
    /// The device it publishes, distinct per bystander.
    package let device: String

    private struct Tally {
        package var frames = 0
        package var lastSeq: UInt64 = 0
        package var outOfOrder = 0
    }

    /// Starts publishing and viewing on `server` (with `token` on the upgrade when the
    /// server runs with auth); returns once the viewer has its first frame.
    package init(
        _ server: ServerHarness, device: String = "bystander-\(UInt32.random(in: 0...UInt32.max))",
        token: String? = nil
    ) async throws {
        self.server = server
        self.device = device
        client = try await WebSocketClient.start()
        let url = server.url("/v1/stream") + (token.map { "?token=\($0)" } ?? "")
        let viewer = try await client.connect(to: url)
        let publisher = try await client.connect(to: url)
        viewer.send(OutboundFrame(body: subscribe("bystander", [device]).encoded()))
        let tally = received
        reader = Task {
            for await message in viewer.messages {
                guard case .loc(_, let location)? = try? ServerMessage.decode(message.bytes) else { continue }
                let seq = location.seq
                tally.withLock { tally in
                    if seq <= tally.lastSeq { tally.outOfOrder += 1 }
                    tally.lastSeq = seq
                    tally.frames += 1
                }
            }
        }
        pump = Task { [device] in
            var step = 0.0
            while !Task.isCancelled {
                step += 1
                let location = testLocation(device, lat: 10 + (step.truncatingRemainder(dividingBy: 100)) / 1000)
                publisher.send(OutboundFrame(body: ClientMessage.publish([location], ack: false).encoded()))
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        baselineRSSKiB = (try? Self.rssKiB(server.pid)) ?? 0
        let deadline = ContinuousClock.now + .seconds(10)
        while received.withLock({ $0.frames }) == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        guard received.withLock({ $0.frames }) > 0 else { throw BystanderError.noFirstFrame }
    }

    deinit {
        pump.cancel()
        reader.cancel()
    }

    /// Frames the viewer has received so far.
    package var frames: Int { received.withLock { $0.frames } }

    /// Records an issue unless the bystander is still served: at least `minFrames` new
    /// frames within `window`, none out of order, `/healthz` 200, and RSS grown by at
    /// most `maxRSSGrowthKiB` (scaled under TSan, see `SanitizerScale`) since it started.
    package func expectUnharmed(
        minFrames: Int = 5, within window: Duration = .seconds(5), maxRSSGrowthKiB: Int = 100 * 1024,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let start = frames
        let deadline = ContinuousClock.now + window
        while frames - start < minFrames, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        #expect(frames - start >= minFrames, "bystander frames kept arriving", sourceLocation: sourceLocation)
        #expect(
            received.withLock { $0.outOfOrder } == 0, "bystander frames in seq order", sourceLocation: sourceLocation)
        let health = try? RawHTTPResponse.fetch(port: server.port, path: "/healthz").status
        #expect(health == 200, "/healthz answers", sourceLocation: sourceLocation)
        if let rss = try? Self.rssKiB(server.pid) {
            #expect(
                rss - baselineRSSKiB <= SanitizerScale.memoryKiB(maxRSSGrowthKiB),
                "server RSS grew \(rss - baselineRSSKiB) KiB",
                sourceLocation: sourceLocation)
        }
    }

    /// Stops publishing and closes both connections.
    package func stop() async {
        pump.cancel()
        reader.cancel()
        await client.shutdown()
    }

    /// The resident set of process `pid`, in KiB.
    package static func rssKiB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    package enum BystanderError: Error { case noFirstFrame }
}
