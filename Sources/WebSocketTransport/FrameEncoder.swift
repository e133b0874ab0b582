/// Frames messages by hand into one buffer: the "cork".
///
/// A server frame is unmasked: `FIN|opcode`, the payload length (7 bits, or 126 and
/// 16 bits, or 127 and 64 bits, big-endian), then the payload. Writing a whole batch of
/// frames with one `lws_write(LWS_WRITE_RAW)` costs one syscall instead of one per
/// frame; clients still see ordinary one-message frames.
enum FrameEncoder {
    /// The most header bytes one frame needs.
    static let maxHeaderCount = 10

    /// Bytes `frame` takes on the wire.
    static func wireCount(of frame: OutboundFrame) -> Int {
        wireCount(payload: frame.payloadCount)
    }

    /// The bytes a frame of `payload` bytes takes on the wire, header included.
    static func wireCount(payload: Int) -> Int {
        headerCount(payload: payload) + payload
    }

    /// Writes `frame` at `buffer[offset...]` and returns the offset after it.
    /// The buffer must have room for `wireCount(of: frame)` bytes.
    static func write(_ frame: OutboundFrame, into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        let at = writeHeader(opcode: frame.opcode, payload: frame.payloadCount, into: buffer, at: offset)
        return copy(frame.body, into: buffer, at: copy(frame.head, into: buffer, at: at))
    }

    private static func copy(_ bytes: [UInt8], into buffer: UnsafeMutableRawBufferPointer, at offset: Int) -> Int {
        bytes.withUnsafeBytes { source in
            guard let base = source.baseAddress, let target = buffer.baseAddress else { return }
            (target + offset).copyMemory(from: base, byteCount: source.count)
        }
        return offset + bytes.count
    }

    private static func headerCount(payload: Int) -> Int {
        payload < 126 ? 2 : payload <= 0xFFFF ? 4 : 10
    }

    private static func writeHeader(
        opcode: OutboundFrame.Opcode, payload: Int, into buffer: UnsafeMutableRawBufferPointer, at offset: Int
    ) -> Int {
        buffer[offset] = 0x80 | opcode.rawValue
        switch payload {
        case ..<126:
            buffer[offset + 1] = UInt8(payload)
            return offset + 2
        case ...0xFFFF:
            buffer[offset + 1] = 126
            buffer[offset + 2] = UInt8(payload >> 8)
            buffer[offset + 3] = UInt8(payload & 0xFF)
            return offset + 4
        default:
            buffer[offset + 1] = 127
            for index in 0..<8 {
                buffer[offset + 2 + index] = UInt8((UInt64(payload) >> (56 - 8 * UInt64(index))) & 0xFF)
            }
            return offset + 10
        }
    }
}
