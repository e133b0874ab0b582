import LocstreamClient
import TestSupport
import Testing

extension ClientEndToEndTests {
    /// `.task(id:)` restarts: the next sequence takes over the freed connection.
    @Suite("switching a connection between sequences")
    struct SwitchTests {
        @Test(
            "a sequence started as another ends reuses its connection: a subscribe with a new sub",
            .timeLimit(.minutes(1)))
        func reuse() async throws {
            let server = try await ServerHarness()
            try await ClientEndToEndTests.withClient(of: server, configuration: ClientEndToEndTests.patientSwitch) {
                client in
                let seqs = try await client.publish([testLocation("a"), testLocation("b")])
                let first = try await client.locations(of: ["a"]).collect(until: \.endsOpening)
                let second = try await client.locations(of: ["b"]).collect(until: \.endsOpening)
                #expect(first == [.location(located("a", seq: seqs[0])), .snapshotEnd])
                #expect(second == [.location(located("b", seq: seqs[1])), .snapshotEnd])
                let metrics = try server.metrics()
                #expect(metrics["locstream_subscription_switches_total"] == 1)
                #expect(metrics["locstream_connections"] == 2, "one for the sequences, one for publishing")
            }
        }

        @Test(
            "20 switches during a publish flood: no element of a sequence's predecessor, seqs in order",
            .timeLimit(.minutes(1)))
        func noStaleElement() async throws {
            let server = try await ServerHarness(ServerHarness.floodLimits)
            try await ClientEndToEndTests.withClient(of: server, configuration: ClientEndToEndTests.patientSwitch) {
                client in
                let flood = Task {
                    while !Task.isCancelled {
                        _ = try await client.publish([testLocation("a"), testLocation("b")])
                    }
                }
                defer { flood.cancel() }
                for round in 0..<20 {
                    let device = round.isMultiple(of: 2) ? "a" : "b"
                    var live = 0
                    let updates = try await client.locations(of: [device]).collect { update in
                        if update.location != nil { live += 1 }
                        return live == 6
                    }
                    let locations = updates.compactMap(\.location)
                    #expect(locations.allSatisfy { $0.device == device }, "round \(round): \(locations.map(\.device))")
                    let seqs = locations.map(\.seq)
                    #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "round \(round): \(seqs)")
                }
                #expect(try server.metrics()["locstream_subscription_switches_total"] == 19)
            }
        }
    }
}

/// `testLocation(device)` as the server sends it back, with `seq`.
func located(_ device: String, seq: UInt64) -> Location {
    var location = testLocation(device)
    location.seq = seq
    return location
}
