import LocstreamProtocol
import Testing

@testable import Client

/// Simulated batches split to fit the server's message limit.
@Suite("publish frames")
struct PublishFramesTests {
    @Test("every message fits the limit, and together they carry every location in order", arguments: [1024, 65536])
    func fits(maxBytes: Int) throws {
        var fleet = Fleet(count: 1000, prefix: "sim-", seed: 3, area: .berlin)
        let locations = (0..<1000).map { fleet.report($0, ts: 1_764_421_200_000 + Int64($0)) }
        let frames = PublishFrames.encode(locations, maxBytes: maxBytes)
        #expect(frames.count > 1)
        var decoded: [Location] = []
        for frame in frames {
            #expect(frame.bytes.count <= maxBytes)
            guard case .publish(let batch, let ack) = try ClientMessage.decode(frame.bytes) else {
                Issue.record("not a publish")
                continue
            }
            #expect(ack)
            #expect(batch.count == frame.count)
            decoded += batch
        }
        #expect(decoded == locations)
    }

    @Test("a batch under the limit is one message")
    func small() {
        let locations = [Location(device: "a", lat: 1, lon: 2, ts: 3)]
        let frames = PublishFrames.encode(locations, maxBytes: 65536)
        #expect(frames.count == 1 && frames.first?.count == 1)
        #expect(PublishFrames.encode([], maxBytes: 65536).isEmpty)
    }
}
