import Locking
import LocstreamProtocol
import Testing

@testable import StreamCore

/// The per-subscription stream: batches, and conflation once full.
@Suite("location stream")
struct LocationStreamTests {
    private func publication(_ device: String, _ seq: UInt64) -> Publication {
        Publication(EncodedLocation(Location(device: device, lat: 1, lon: 2, ts: 3, seq: seq)))
    }

    @Test("once full, a device's newest update takes its queued place; order per device holds")
    func conflatesInPlace() async throws {
        let dropped = Locked(0)
        let stream = LocationStream(capacity: 100) { count in dropped.withLock { $0 += count } }
        let devices = (0..<10).map { "d\($0)" }
        for seq in 1...2_000 { stream.push(publication(devices[seq % 10], UInt64(seq))) }
        var iterator = stream.makeAsyncIterator()
        let batch = try #require(await iterator.next())
        #expect(batch.count == 100)
        #expect(dropped.withLock { $0 } == 1_900)
        for device in devices {
            let seqs = batch.filter { $0.update.location.device == device }.map(\.update.location.seq)
            #expect(seqs == seqs.sorted(), "order per device")
            #expect(seqs.last == (1_991...2_000).first { devices[Int($0) % 10] == device }, "the newest is kept")
        }
    }

    @Test("a device not yet queued is still appended when full, so no device is starved")
    func newDevicesStillArrive() async throws {
        let stream = LocationStream(capacity: 4)
        for seq in 1...4 { stream.push(publication("a", UInt64(seq))) }
        stream.push(publication("b", 1))
        stream.push(publication("a", 5))
        var iterator = stream.makeAsyncIterator()
        let batch = try #require(await iterator.next())
        #expect(
            batch.map { "\($0.update.location.device)\($0.update.location.seq)" } == ["a1", "a2", "a3", "a5", "b1"])
    }
}
