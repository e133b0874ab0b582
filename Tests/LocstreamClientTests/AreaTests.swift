import LocstreamClient
import TestSupport
import Testing

extension ClientEndToEndTests {
    /// Area subscriptions: locations inside, and `left` when a device moves out.
    @Suite("area sequences")
    struct AreaTests {
        @Test("a device inside, then moving out of the box: its location, then left", .timeLimit(.minutes(1)))
        func leaves() async throws {
            let server = try await ServerHarness()
            try await ClientEndToEndTests.withClient(of: server) { client in
                let inside = try await client.publish([testLocation("m-1", lat: 52.5, lon: 13.4)])
                let box = Area.bbox(minLon: 13, minLat: 52, maxLon: 14, maxLat: 53)
                var updates = client.locations(in: box).makeAsyncIterator()
                let opening = try await updates.collect(until: \.endsOpening)
                #expect(opening == [.location(located("m-1", seq: inside[0])), .snapshotEnd])
                _ = try await client.publish([testLocation("m-1", lat: 48.1, lon: 11.6)])
                let left = try await updates.next()
                #expect(left == .left(device: "m-1"))
            }
        }
    }
}
