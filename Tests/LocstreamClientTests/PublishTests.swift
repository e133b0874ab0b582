import LocstreamClient
import TestSupport
import Testing

extension ClientEndToEndTests {
    /// `publish` returns the assigned seqs, over as many frames as the server's limits need.
    @Suite("publishing with ack")
    struct PublishTests {
        @Test("2,500 locations in several frames: one seq each, in order per device, as the server stored them")
        func seqsInOrder() async throws {
            let server = try await ServerHarness(ServerHarness.floodLimits)
            try await ClientEndToEndTests.withClient(of: server) { client in
                let devices = (0..<5).map { "p-\($0)" }
                let locations = (0..<2500).map {
                    testLocation(devices[$0 % devices.count], ts: 1_764_421_200_000 + Int64($0))
                }
                let seqs = try await client.publish(locations)
                #expect(seqs.count == locations.count)
                var last: [String: UInt64] = [:]
                for (location, seq) in zip(locations, seqs) {
                    #expect(seq > last[location.device, default: 0], "\(location.device): \(seq)")
                    last[location.device] = seq
                }
                #expect(try server.metrics()["locstream_publish_total"] == 2500)
                let snapshot = try await client.locations(of: devices).collect(until: \.endsOpening)
                let stored = Dictionary(
                    uniqueKeysWithValues: snapshot.compactMap(\.location).map { ($0.device, $0.seq) })
                #expect(stored == last, "each device's last position carries the last seq returned")
            }
        }
    }
}
