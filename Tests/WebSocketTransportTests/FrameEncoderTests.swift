import Testing

@testable import WebSocketTransport

/// Hand framing of the cork: headers for every payload length form.
@Suite("frame encoder")
struct FrameEncoderTests {
    @Test("7-bit, 16-bit and 64-bit length forms", arguments: [0, 125, 126, 65535, 65536, 70000])
    func lengths(count: Int) {
        let frame = OutboundFrame(opcode: .text, head: [0x7B], body: Array(repeating: 0x61, count: max(count - 1, 0)))
        let size = FrameEncoder.wireCount(of: frame)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
        defer { buffer.deallocate() }
        #expect(FrameEncoder.write(frame, into: buffer, at: 0) == size)
        let bytes = Array(buffer)
        #expect(bytes[0] == 0x81)
        let payload = frame.payloadCount
        switch payload {
        case ..<126: #expect(Int(bytes[1]) == payload && size == payload + 2)
        case ...0xFFFF: #expect(bytes[1] == 126 && Int(bytes[2]) << 8 | Int(bytes[3]) == payload)
        default: #expect(bytes[1] == 127 && bytes[2..<10].reduce(0) { $0 << 8 | Int($1) } == payload)
        }
        if payload > 0 { #expect(bytes[size - payload] == 0x7B) }
    }
}
