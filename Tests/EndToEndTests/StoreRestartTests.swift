import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd.StoreDurabilityTests {
    /// A clean restart (SIGTERM) loses nothing: the node comes back with the same last
    /// positions and history, read from the store, and seqs go on above everything handed
    /// out and above the wall clock of the restart (so a restored backup repeats none); a
    /// device forgotten for silence (`--retention`) does not come back.
    @Suite("store: clean restart")
    struct StoreRestartTests {
        typealias Durability = EndToEnd.StoreDurabilityTests

        @Test(
            "SIGTERM, restart: same last positions and GET /v1/devices, since replays from the store, next seq above the last and the clock",
            .timeLimit(.minutes(1)))
        func cleanRestart() async throws {
            try await Durability.withDataDirectory { directory, client in
                let first = try await Durability.server(directory)
                let flood = try await StoreFlood(on: first, client: client, publishers: 2, devicesEach: 2)
                #expect(await flood.waitForAcks(perDevice: 50), "the flood gets going")
                let record = await flood.stop()
                var histories: [String: [ReceivedLocation]] = [:]
                var bodies: [String: String] = [:]
                for device in flood.devices {
                    histories[device] = try await Durability.history(of: device, on: first, client: client)
                    bodies[device] = try Durability.fetchDevice(device, on: first).body
                    #expect(histories[device]?.count == record.acked[device]?.count, "\(device): all in memory")
                }
                let snapshot = try await Durability.lastKnown(flood.devices, on: first, client: client)
                #expect(await first.stop() == 0, "a clean exit")

                let restartMicros = UInt64(Date().timeIntervalSince1970 * 1_000_000)
                let server = try await Durability.server(directory)
                let opened = await server.logLine(containing: "store opened")
                #expect(
                    opened?.contains("recovered_from_crash=false") == true && opened?.contains("devices=5") == true,
                    "\(opened ?? "no store opened line")")
                #expect(
                    try await Durability.lastKnown(flood.devices, on: server, client: client) == snapshot,
                    "the same last positions, byte for byte")
                for device in flood.devices {
                    let fetched = try Durability.fetchDevice(device, on: server)
                    #expect(fetched.status == 200 && fetched.body == bodies[device], "GET /v1/devices/\(device)")
                    // Memory holds only the last position after a start: the rest comes from the store.
                    let history = try await Durability.history(of: device, on: server, client: client)
                    #expect(history == histories[device], "\(device): the same history, byte for byte")
                }

                let next = try await Durability.publishOnce(flood.devices, on: server, client: client)
                for device in flood.devices {
                    let last = try #require(snapshot[device]?.location.seq)
                    let seq = next[device]?.seq ?? 0
                    #expect(
                        seq > last && seq > restartMicros,
                        "\(device): \(seq) after \(last), restarted at \(restartMicros)")
                }
            }
        }

        @Test(
            "since after a restart (--history-size 50, then 50 or 20) reaches past memory: the newest, from store and memory",
            .timeLimit(.minutes(1)), arguments: [50, 20])
        func replayAcrossRestart(historyAfter: Int) async throws {
            try await Durability.withDataDirectory { directory, client in
                let devices = ["r-1", "r-2"]
                let first = try await Durability.server(directory, history: 50)
                var published: [String: [UInt64]] = [:]
                for _ in 0..<120 {
                    for (device, location) in try await Durability.publishOnce(devices, on: first, client: client) {
                        published[device, default: []].append(location.seq)
                    }
                }
                #expect(await first.stop() == 0)
                let server = try await Durability.server(directory, history: historyAfter)
                for _ in 0..<10 {
                    for (device, location) in try await Durability.publishOnce(devices, on: server, client: client) {
                        published[device, default: []].append(location.seq)
                    }
                }
                for device in devices {
                    // 120 seqs before the restart, then a jump (above the restart's clock), then 10.
                    let seqs = published[device] ?? []
                    #expect(seqs.count == 130 && seqs == seqs.sorted())
                    let kept = seqs.suffix(historyAfter)
                    for index in [0, 29, 99, 108, 118, 119, 120, 126, 129] where index < seqs.count {
                        let since = index == 0 ? 0 : seqs[index]
                        let replayed = try await Durability.history(
                            of: device, after: since, on: server, client: client
                        ).map(\.location.seq)
                        #expect(
                            replayed == kept.filter { $0 > since },
                            "\(device) since \(since): \(replayed.first ?? 0)...\(replayed.last ?? 0), \(replayed.count)"
                        )
                    }
                }
            }
        }

        @Test(
            "a device forgotten for silence stays forgotten after a restart; back, its seq goes on rising",
            .timeLimit(.minutes(1)))
        func forgottenStaysForgotten() async throws {
            try await Durability.withDataDirectory { directory, client in
                let first = try await Durability.server(directory, ["--retention", "2s"])
                var seen: UInt64 = 0
                for _ in 0..<3 {
                    seen = try #require(
                        try await Durability.publishOnce(["gone"], on: first, client: client)["gone"]?.seq)
                }
                #expect(
                    await eventually {
                        try first.metrics()["locstream_devices_evicted_total"] == 1
                    }, "forgotten in memory")
                #expect(try Durability.fetchDevice("gone", on: first).status == 404)
                #expect(await first.stop() == 0)

                let server = try await Durability.server(directory, ["--retention", "2s"])
                let opened = await server.logLine(containing: "store opened") ?? ""
                #expect(opened.contains("devices=0"), "the store forgot it too: \(opened)")
                #expect(try Durability.fetchDevice("gone", on: server).status == 404, "not back after the restart")
                let back = try await Durability.publishOnce(["gone"], on: server, client: client)["gone"]?.seq
                #expect(back ?? 0 > seen, "back with seq \(back ?? 0), after \(seen)")
            }
        }

        /// Issue 15: "If the data directory is lost or replaced, seqs still never go
        /// backwards." A directory replaced by an older copy of itself (a backup taken while
        /// the server was stopped, restored later) holds a cleanly closed store: nothing
        /// tells the server that seqs above the copy's were handed out since.
        ///
        /// KNOWN FAILURE, left failing on purpose (see the commit that added it): the store
        /// raises its seq floor to the wall clock only for a new store and after a crash, so
        /// a restored backup of a stopped server hands out again the seqs given after the
        /// backup. A copy of a running server's directory is safe (it is recovered as after
        /// a crash). Fixing it means a clock floor at every start, which gives up "a clean
        /// restart costs no gap" (`cleanRestart` above): a design decision, not a small fix.
        @Test(
            "a restored backup of a stopped server: seqs handed out after the backup are not handed out again",
            .timeLimit(.minutes(1)))
        func restoredBackup() async throws {
            try await Durability.withDataDirectory { directory, client in
                let backup = directory + "-backup"
                let first = try await Durability.server(directory)
                let backedUp = try #require(try await Durability.publishOnce(["veh"], on: first, client: client)["veh"])
                #expect(await first.stop() == 0)
                try FileManager.default.copyItem(atPath: directory, toPath: backup)

                let second = try await Durability.server(directory)
                var seen = backedUp.seq
                for _ in 0..<5 {
                    seen = try #require(try await Durability.publishOnce(["veh"], on: second, client: client)["veh"])
                        .seq
                }
                #expect(await second.stop() == 0)
                try FileManager.default.removeItem(atPath: directory)
                try FileManager.default.moveItem(atPath: backup, toPath: directory)

                let restored = try await Durability.server(directory)
                let next = try #require(try await Durability.publishOnce(["veh"], on: restored, client: client)["veh"])
                #expect(
                    next.seq > seen,
                    "seq \(next.seq) was handed out already, after the backup (\(backedUp.seq)), before \(seen)")
            }
        }
    }
}
