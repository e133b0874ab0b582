import LocstreamProtocol
import Testing

@testable import LoadBench

/// The bench's byte-copying publish encoder.
@Suite("bench publish encoder")
struct BenchPublishEncoderTests {
    @Test("batches decode as publish messages with every location, in order, stamped ts")
    func decodes() throws {
        let encoder = PublishEncoder(devices: 50, prefix: "b-", attrsBytes: 0, maxMessageBytes: 65536)
        let devices = Array(0..<50) + Array(0..<50)
        let messages = encoder.encode(devices, ts: 1_764_421_200_123)
        #expect(messages.count == 1)
        guard case .publish(let locations, let ack) = try ClientMessage.decode(messages[0].bytes) else {
            Issue.record("not a publish")
            return
        }
        #expect(!ack)
        #expect(locations.map(\.device) == devices.map { "b-\($0)" })
        #expect(locations.allSatisfy { $0.ts == 1_764_421_200_123 && $0.speed == 8.3 && $0.attrs == nil })
    }

    @Test("messages stay under the byte limit and 1,000 locations")
    func splits() throws {
        let encoder = PublishEncoder(devices: 10, prefix: "b-", attrsBytes: 0, maxMessageBytes: 2048)
        let devices = (0..<2500).map { $0 % 10 }
        let messages = encoder.encode(devices, ts: 1)
        #expect(messages.allSatisfy { $0.bytes.count <= 2048 })
        #expect(messages.reduce(0) { $0 + $1.count } == 2500)
        let large = PublishEncoder(devices: 10, prefix: "b-", attrsBytes: 0, maxMessageBytes: 1 << 20)
        #expect(large.encode(devices, ts: 1).map(\.count) == [1000, 1000, 500])
        for message in messages {
            guard case .publish(let batch, _) = try ClientMessage.decode(message.bytes) else {
                Issue.record("not a publish")
                continue
            }
            #expect(batch.count == message.count)
        }
        #expect(encoder.encode([], ts: 1).isEmpty)
    }

    @Test("attrs padding is exactly the bytes asked for", arguments: [10, 100, 512])
    func attrs(bytes: Int) throws {
        let encoder = PublishEncoder(devices: 1, prefix: "b-", attrsBytes: bytes, maxMessageBytes: 65536)
        guard case .publish(let locations, _) = try ClientMessage.decode(encoder.encode([0], ts: 5)[0].bytes),
            let attrs = locations.first?.attrs
        else {
            Issue.record("no attrs")
            return
        }
        #expect(attrs.encoded().count == bytes)
    }
}
