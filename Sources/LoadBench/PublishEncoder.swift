import Foundation
import LocstreamProtocol

/// Encodes the bench's `publish` batches by copying bytes.
///
/// Every device's location is encoded once, at start, as the bytes before its `ts` and the
/// bytes after it; a batch is then those pieces and one `ts` per cycle, split into
/// messages of at most 1,000 locations and `maxMessageBytes` bytes. The bench's CPU goes to
/// receiving, not to encoding what it sends.
struct PublishEncoder: Sendable {
    /// The smallest `attrs` padding: `{"pad":""}`.
    static let minimumAttrsBytes = 10
    private static let open = Array(#"{"op":"publish","locs":["#.utf8)
    private static let close = Array("]}".utf8)

    private let heads: [[UInt8]]
    private let tail: [UInt8]
    /// Device ids are `prefix` + index.
    let prefix: String
    /// The largest message the server accepts.
    let maxMessageBytes: Int

    /// An encoder for devices 0..<`devices`, each with a fixed position in central Berlin.
    init(devices: Int, prefix: String, attrsBytes: Int, maxMessageBytes: Int) {
        self.prefix = prefix
        self.maxMessageBytes = maxMessageBytes
        heads = (0..<devices).map { index in
            let lat = 52.33 + Double(index &* 7919 % 10_000) / 10_000 * 0.35
            let lon = 13.08 + Double(index &* 104_729 % 10_000) / 10_000 * 0.68
            let position = String(format: #""lat":%.6f,"lon":%.6f,"ts":"#, lat, lon)
            return Array(#"{"device":""#.utf8) + Array("\(prefix)\(index)".utf8) + Array(#"","#.utf8)
                + Array(position.utf8)
        }
        var tail = Array(#","speed":8.3,"heading":271.5,"acc":4.5"#.utf8)
        if attrsBytes >= Self.minimumAttrsBytes {
            let pad = String(repeating: "x", count: attrsBytes - Self.minimumAttrsBytes)
            tail += Array(#","attrs":{"pad":""#.utf8) + Array(pad.utf8) + Array(#""}"#.utf8)
        }
        tail.append(JSONByte.closeBrace)
        self.tail = tail
    }

    /// The id of device `index`.
    func deviceID(_ index: Int) -> String { prefix + String(index) }

    /// The bytes one location takes in a batch (without the comma), for device `index`.
    func locationBytes(_ index: Int, ts: Int64) -> Int { heads[index].count + String(ts).utf8.count + tail.count }

    /// The locations of `devices`, all stamped `ts`, as publish messages (no `ack`), each
    /// with the number of locations it carries.
    func encode(_ devices: [Int], ts: Int64) -> [(bytes: [UInt8], count: Int)] {
        let digits = Array(String(ts).utf8)
        var messages: [(bytes: [UInt8], count: Int)] = []
        var bytes: [UInt8] = []
        var count = 0
        for device in devices {
            let size = heads[device].count + digits.count + tail.count
            if count > 0,
                count == ProtocolLimits.maxLocationsPerPublish
                    || bytes.count + 1 + size + Self.close.count > maxMessageBytes
            {
                messages.append((bytes + Self.close, count))
                count = 0
            }
            if count == 0 {
                bytes.removeAll(keepingCapacity: true)
                bytes.reserveCapacity(min(maxMessageBytes, Self.open.count + devices.count * (size + 1) + 2))
                bytes += Self.open
            } else {
                bytes.append(JSONByte.comma)
            }
            bytes += heads[device]
            bytes += digits
            bytes += tail
            count += 1
        }
        if count > 0 { messages.append((bytes + Self.close, count)) }
        return messages
    }
}
