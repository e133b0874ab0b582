import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd.StoreDurabilityTests {
    /// A server SIGKILLed in the middle of a publish flood, restarted on its data
    /// directory or on a new one: nothing acknowledged is lost, and no device's seq
    /// repeats or goes back, although fan-out runs ahead of the disk.
    @Suite("store: SIGKILL mid-flood")
    struct StoreCrashTests {
        typealias Durability = EndToEnd.StoreDurabilityTests

        /// What a flood saw before its server was killed, and the server started again.
        struct Crash {
            let flood: StoreFlood
            let before: StoreFlood.Record
            let server: ServerHarness
            /// The restarted server's `store opened` log line.
            let opened: String
        }

        /// Runs a flood on a server over `directory` (with `--sync sync`) until every device
        /// has 150 acknowledged locations, SIGKILLs the server, deletes `directory` if
        /// `losingDirectory`, and starts a server on it again.
        static func crash(
            _ directory: String, client: WebSocketClient, sync: String = "normal", losingDirectory: Bool = false
        ) async throws -> Crash {
            let killed = try await Durability.server(directory, ["--sync", sync])
            let flood = try await StoreFlood(on: killed, client: client)
            #expect(await flood.waitForAcks(perDevice: 150), "the flood gets going")
            let status = await killed.stop(signal: SIGKILL)
            let before = await flood.stop()
            #expect(status == SIGKILL, "killed, not stopped")
            #expect(before.outOfOrder == 0, "the watcher got every device in seq order")
            let acked = before.acked.values.reduce(0) { $0 + $1.count }
            let delivered = before.delivered.values.reduce(0) { $0 + $1.count }
            print("store: killed after \(acked) acknowledged locations, \(delivered) delivered to the watcher")
            if losingDirectory { try FileManager.default.removeItem(atPath: directory) }
            let server = try await Durability.server(directory, ["--sync", sync])
            let opened = await server.logLine(containing: "store opened") ?? "no store opened line"
            return Crash(flood: flood, before: before, server: server, opened: opened)
        }

        @Test(
            "SIGKILL mid-flood (--sync normal, full), restart: every acked location in history, in order; seqs above all seen",
            .timeLimit(.minutes(1)), arguments: ["normal", "full"])
        func killMidFlood(sync: String) async throws {
            try await Durability.withDataDirectory { directory, client in
                let crash = try await Self.crash(directory, client: client, sync: sync)
                let (flood, before, server) = (crash.flood, crash.before, crash.server)
                #expect(crash.opened.contains("recovered_from_crash=true"), "\(crash.opened)")

                var stored: [String: [ReceivedLocation]] = [:]
                for device in flood.devices {
                    let history = try await Durability.history(of: device, on: server, client: client)
                    stored[device] = history
                    let seqs = history.map(\.location.seq)
                    #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 }, "\(device): history in seq order")
                    let published = history.map(\.location.ts)
                    #expect(published == published.sorted(), "\(device): in the order it was published")
                    let acked = before.acked[device] ?? []
                    let missing = Set(acked).subtracting(published)
                    #expect(
                        missing.isEmpty, "\(device): \(missing.count) of \(acked.count) acknowledged locations lost")
                    let sent = Dictionary(
                        (before.delivered[device] ?? []).map { ($0.ts, $0.seq) }, uniquingKeysWith: { $1 })
                    let renumbered = history.filter { frame in
                        sent[frame.location.ts].map { $0 != frame.location.seq } ?? false
                    }
                    #expect(renumbered.isEmpty, "\(device): stored with the seq it was delivered with")
                }

                let snapshot = try await Durability.lastKnown(flood.devices, on: server, client: client)
                for device in flood.devices {
                    let last = try #require(snapshot[device], "\(device): a last position after the restart")
                    #expect(last == stored[device]?.last, "\(device): the last position is the newest stored")
                    #expect(
                        last.location.ts >= before.acked[device]?.last ?? .max,
                        "\(device): not older than the last acknowledged")
                    let fetched = try Durability.fetchDevice(device, on: server)
                    #expect(fetched.status == 200 && fetched.body == last.body, "GET /v1/devices/\(device): \(fetched)")
                }

                let next = try await Durability.publishOnce(flood.devices, on: server, client: client)
                for device in flood.devices {
                    let seq = try #require(next[device]?.seq, "\(device): published after the restart")
                    #expect(
                        seq > before.highestSeq(device), "\(device): \(seq) after \(before.highestSeq(device)) seen")
                }
                let gap = flood.devices.map { (next[$0]?.seq ?? 0) - before.highestSeq($0) }.min() ?? 0
                print("store: seqs went on at least \(gap) above the highest seen before the kill")
            }
        }

        @Test(
            "SIGKILL mid-flood, data directory deleted: the new store starts empty, seqs above everything seen before",
            .timeLimit(.minutes(1)))
        func lostDirectory() async throws {
            try await Durability.withDataDirectory { directory, client in
                let crash = try await Self.crash(directory, client: client, losingDirectory: true)
                let (flood, before, server) = (crash.flood, crash.before, crash.server)
                #expect(crash.opened.contains("devices=0"), "a new store: \(crash.opened)")
                for device in flood.devices {
                    #expect(try Durability.fetchDevice(device, on: server).status == 404, "\(device) is forgotten")
                }
                let highest = flood.devices.map(before.highestSeq).max() ?? 0
                let next = try await Durability.publishOnce(flood.devices, on: server, client: client)
                for device in flood.devices {
                    let seq = try #require(next[device]?.seq, "\(device): published after the restart")
                    #expect(seq > highest, "\(device): \(seq) after \(highest), the highest seq seen before")
                }
            }
        }
    }
}
