import LocstreamClient
import Testing

/// Publishes split to fit the server's limits.
@Suite("publish frames")
struct PublishFramesTests {
    static func locations(_ count: Int) -> [Location] {
        (0..<count).map { Location(device: "veh-\($0)", lat: 52.5, lon: 13.4, ts: 1_764_421_200_000 + Int64($0)) }
    }

    /// The locations of `frames`, checking each is a publish with `ack` and its stated count.
    static func decoded(_ frames: [(bytes: [UInt8], count: Int)]) throws -> [Location] {
        var locations: [Location] = []
        for frame in frames {
            guard case .publish(let batch, let ack) = try ClientMessage.decode(frame.bytes) else {
                Issue.record("not a publish")
                continue
            }
            #expect(ack && batch.count == frame.count)
            locations += batch
        }
        return locations
    }

    @Test("at most 1000 locations a frame, in order")
    func countLimit() throws {
        let locations = Self.locations(2500)
        let frames = PublishFrames.encode(locations, maxBytes: .max)
        #expect(frames.map(\.count) == [1000, 1000, 500])
        #expect(try Self.decoded(frames) == locations)
    }

    @Test("every frame fits the byte limit, and together they carry every location in order", arguments: [1024, 20000])
    func byteLimit(maxBytes: Int) throws {
        let locations = Self.locations(1000)
        let frames = PublishFrames.encode(locations, maxBytes: maxBytes)
        #expect(frames.count > 1)
        #expect(frames.allSatisfy { $0.bytes.count <= maxBytes })
        #expect(try Self.decoded(frames) == locations)
    }

    @Test("a location larger than the limit goes alone; a small list is one frame; nothing makes no frame")
    func edges() {
        #expect(PublishFrames.encode(Self.locations(3), maxBytes: 10).map(\.count) == [1, 1, 1])
        #expect(PublishFrames.encode(Self.locations(3), maxBytes: 65536).map(\.count) == [3])
        #expect(PublishFrames.encode([], maxBytes: 65536).isEmpty)
    }
}
