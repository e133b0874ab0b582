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

        @Test(
            "1,000 sequences, ten at a time, each ended at its first live location during a publish flood: zero stale",
            .timeLimit(.minutes(1)))
        func thousandSwitches() async throws {
            let server = try await ServerHarness(ServerHarness.floodLimits)
            let devices = (0..<20).map { "f-\($0)" }
            let started = ContinuousClock.now
            try await ClientEndToEndTests.withClient(of: server, configuration: ClientEndToEndTests.patientSwitch) {
                client in
                let flood = Task {
                    while !Task.isCancelled { _ = try await client.publish(devices.map { testLocation($0) }) }
                }
                defer { flood.cancel() }
                let outcomes = try await withThrowingTaskGroup(of: SwitchOutcome.self) { group in
                    for viewer in 0..<10 {
                        group.addTask {
                            try await Self.switchQuickly(client, devices: devices, offset: viewer * 7, sequences: 100)
                        }
                    }
                    return try await group.reduce(into: SwitchOutcome()) { $0.add($1) }
                }
                #expect(outcomes.sequences == 1000)
                #expect(outcomes.stale == [], "elements of another device than the sequence's")
                #expect(outcomes.unordered == 0, "sequences whose seqs did not increase")
                let switches = try server.metrics()["locstream_subscription_switches_total"] ?? 0
                #expect(switches >= 990, "a sequence reuses a freed connection: \(switches) switches")
            }
            #expect(started.duration(to: .now) < .seconds(30), "took \(started.duration(to: .now))")
        }

        /// Runs `sequences` sequences one after another, each of a device other than the one
        /// before, each ended at its first live location.
        private static func switchQuickly(
            _ client: LocstreamClient, devices: [String], offset: Int, sequences: Int
        ) async throws(LocstreamError) -> SwitchOutcome {
            var outcome = SwitchOutcome()
            for number in 0..<sequences {
                let device = devices[(offset + number) % devices.count]
                var opened = false
                let updates = try await client.locations(of: [device]).collect { update in
                    defer { if update == .snapshotEnd { opened = true } }
                    return opened && update.location != nil
                }
                let locations = updates.compactMap(\.location)
                outcome.sequences += 1
                outcome.stale += locations.filter { $0.device != device }.map(\.device)
                if locations.map(\.seq) != locations.map(\.seq).sorted() { outcome.unordered += 1 }
            }
            return outcome
        }
    }
}

/// `testLocation(device)` as the server sends it back, with `seq`.
func located(_ device: String, seq: UInt64) -> Location {
    var location = testLocation(device)
    location.seq = seq
    return location
}

/// What the sequences of `thousandSwitches` saw.
private struct SwitchOutcome: Sendable {
    var sequences = 0
    /// The devices of elements that did not belong to their sequence.
    var stale: [String] = []
    var unordered = 0

    mutating func add(_ other: SwitchOutcome) {
        sequences += other.sequences
        stale += other.stale
        unordered += other.unordered
    }
}
