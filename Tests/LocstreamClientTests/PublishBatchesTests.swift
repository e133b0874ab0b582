import Testing

@testable import LocstreamClient

@Suite("publish batches stay under the server's limits")
struct PublishBatchesTests {
    static func locations(_ count: Int) -> [Location] {
        (0..<count).map { Location(device: "veh-\($0)", lat: 52.5, lon: 13.4, ts: 1_764_421_200_000 + Int64($0)) }
    }

    @Test("at most 1000 locations a frame, in order")
    func countLimit() {
        let locations = Self.locations(2500)
        let batches = PublishBatches.split(locations, maxBytes: .max)
        #expect(batches.map(\.count) == [1000, 1000, 500])
        #expect(batches.flatMap { $0 } == locations)
    }

    @Test("every frame within the byte limit, none needlessly small", arguments: [300, 2000, 60_000])
    func byteLimit(maxBytes: Int) {
        let locations = Self.locations(700)
        let batches = PublishBatches.split(locations, maxBytes: maxBytes)
        let sizes = batches.map { ClientMessage.publish($0, ack: true).encoded().count }
        #expect(sizes.allSatisfy { $0 <= maxBytes }, "\(sizes)")
        #expect(batches.flatMap { $0 } == locations)
        for (batch, next) in zip(batches, batches.dropFirst()) {
            let joined = ClientMessage.publish(batch + [next[0]], ack: true).encoded().count
            #expect(joined > maxBytes, "the next location would not have fitted")
        }
    }

    @Test("a location larger than the limit goes alone; nothing to publish makes no frame")
    func edges() {
        #expect(PublishBatches.split(Self.locations(3), maxBytes: 10).map(\.count) == [1, 1, 1])
        #expect(PublishBatches.split([], maxBytes: 1000).isEmpty)
    }
}
