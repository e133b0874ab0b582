import Foundation
import TestSupport
import Testing

@testable import LocationStore

/// A real crash: `store-bench publish-until-killed` publishes until SIGKILL; after it,
/// every acknowledged update is stored, and every device continues above every seq the
/// killed process handed out.
@Suite("store: SIGKILL")
struct KillTests {
    @Test("SIGKILL while publishing: acked updates kept, no seq repeated after the restart")
    func killWhilePublishing() async throws {
        let fixture = try StoreFixture()
        let process = Process()
        process.executableURL = ServerHarness.binDirectory.appendingPathComponent("store-bench")
        process.arguments = ["publish-until-killed", fixture.directory]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        var output = Data()
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            output.append(pipe.fileHandleForReading.availableData)
            if String(decoding: output, as: UTF8.self).components(separatedBy: "acked").count > 3_000 { break }
        }
        kill(process.processIdentifier, SIGKILL)
        output.append(pipe.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        var sent: [String: UInt64] = [:]
        var acked: [String: UInt64] = [:]
        for line in String(decoding: output, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, let seq = UInt64(fields[2]) else { continue }
            let device = String(fields[1])
            if fields[0] == "sent" { sent[device] = max(sent[device] ?? 0, seq) }
            if fields[0] == "acked" { acked[device] = max(acked[device] ?? 0, seq) }
        }
        #expect(acked.count == 50, "acked devices: \(acked.count)")
        for (device, seq) in acked {
            #expect((sent[device] ?? 0) >= seq, "\(device): acked \(seq) was said to be sent first")
        }
        let inFlight = sent.reduce(0) { $0 + Int($1.value) - Int(acked[$1.key] ?? 0) }
        print("store: killed with \(inFlight) seqs sent and not acknowledged")

        let store = try fixture.open()
        let snapshot = try store.load()
        #expect(snapshot.recoveredFromCrash)
        let stored = Dictionary(uniqueKeysWithValues: snapshot.devices.map { ($0.last.location.device, $0) })
        for (device, seq) in acked {
            #expect((stored[device]?.last.location.seq ?? 0) >= seq, "\(device): acked \(seq) is stored")
        }
        for (device, seq) in sent {
            #expect((stored[device]?.seq ?? snapshot.seqFloor) >= seq, "\(device): sent \(seq), continues above it")
        }
        store.close()
    }
}
