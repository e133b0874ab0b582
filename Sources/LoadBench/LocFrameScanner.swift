/// The four fields a bench measures in one `loc` frame, found without decoding the JSON.
package struct ScannedLoc: Sendable, Equatable {
    /// Where the `sub` string's content lies in the frame (escapes left as they are).
    var sub: Range<Int>
    /// Where the `device` string's content lies in the frame.
    var device: Range<Int>
    /// FNV-1a of the device id's bytes: a cheap key for per-device state.
    var deviceKey: UInt64
    /// The server's sequence number.
    var seq: UInt64
    /// The publisher's timestamp, in milliseconds.
    var ts: Int64
}

/// What one server frame is, as far as the bench's scanner can tell.
package enum ScannedFrame: Sendable, Equatable {
    /// A `loc` frame with its measured fields.
    case loc(ScannedLoc)
    /// Any other op (`subscribed`, `error`, …): rare, decoded fully by the caller.
    case control
    /// Not an object, no `op`, or a `loc` frame missing one of the four fields.
    case malformed
}

/// Reads `op`, `sub`, `device`, `seq` and `ts` from a frame by scanning its bytes.
///
/// It walks the top-level members only, skipping the values it does not need (nested
/// `attrs` included, so a `seq` inside them is never mistaken for the frame's), and stops
/// as soon as the five fields are known. It checks no more than it reads: the bench must
/// load the server, not spend its core decoding JSON.
package enum LocFrameScanner {
    /// Scans one frame.
    package static func scan(_ frame: [UInt8]) -> ScannedFrame {
        frame.withUnsafeBufferPointer { scan($0) }
    }

    /// Scans one frame held in `bytes`.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> ScannedFrame {
        var cursor = ByteCursor(bytes: bytes)
        cursor.skipSpace()
        guard cursor.take(JSONByte.openBrace) else { return .malformed }
        var fields = Fields()
        while true {
            cursor.skipSpace()
            if cursor.take(JSONByte.closeBrace) { break }
            guard let key = cursor.string(), cursor.skipSpaceAndTake(JSONByte.colon) else { return .malformed }
            cursor.skipSpace()
            switch FieldName(key: key, in: bytes) {
            case .op:
                guard let op = cursor.string() else { return .malformed }
                guard ByteCursor.equals(bytes, op, Self.locOp) else { return .control }
                fields.isLoc = true
            case .sub:
                guard let sub = cursor.string() else { return .malformed }
                fields.sub = sub
            case .device:
                guard let device = cursor.string() else { return .malformed }
                fields.device = device
            case .seq:
                guard let seq = cursor.unsignedInteger() else { return .malformed }
                fields.seq = seq
            case .ts:
                guard let ts = cursor.unsignedInteger() else { return .malformed }
                fields.ts = ts
            case nil:
                guard cursor.skipValue() else { return .malformed }
            }
            if let loc = fields.complete(in: bytes) { return .loc(loc) }
            cursor.skipSpace()
            if cursor.take(JSONByte.comma) { continue }
            guard cursor.take(JSONByte.closeBrace) else { return .malformed }
            break
        }
        return .malformed
    }

    private static let locOp: [UInt8] = Array("loc".utf8)

    /// FNV-1a 64 of `range` in `bytes`.
    static func key(of range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for index in range {
            hash ^= UInt64(bytes[index])
            hash &*= 0x100_0000_01b3
        }
        return hash
    }

    /// The fields found so far.
    private struct Fields {
        var isLoc = false
        var sub: Range<Int>?
        var device: Range<Int>?
        var seq: UInt64?
        var ts: UInt64?

        func complete(in bytes: UnsafeBufferPointer<UInt8>) -> ScannedLoc? {
            guard isLoc, let sub, let device, let seq, let ts, ts <= UInt64(Int64.max) else { return nil }
            return ScannedLoc(
                sub: sub, device: device, deviceKey: LocFrameScanner.key(of: device, in: bytes), seq: seq,
                ts: Int64(ts))
        }
    }

    /// The member names the scanner reads.
    private enum FieldName {
        case op
        case sub
        case device
        case seq
        case ts

        /// The field `key` names, or nil for any other member.
        init?(key: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) {
            guard !key.isEmpty else { return nil }
            let first = bytes[key.lowerBound]
            switch key.count {
            case 2 where first == 0x6F && bytes[key.lowerBound + 1] == 0x70: self = .op  // op
            case 2 where first == 0x74 && bytes[key.lowerBound + 1] == 0x73: self = .ts  // ts
            case 3 where first == 0x73 && bytes[key.lowerBound + 1] == 0x75 && bytes[key.lowerBound + 2] == 0x62:
                self = .sub
            case 3 where first == 0x73 && bytes[key.lowerBound + 1] == 0x65 && bytes[key.lowerBound + 2] == 0x71:
                self = .seq
            case 6 where ByteCursor.equals(bytes, key, Self.deviceName): self = .device
            default: return nil
            }
        }

        private static let deviceName: [UInt8] = Array("device".utf8)
    }
}
