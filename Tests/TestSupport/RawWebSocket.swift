import Foundation

/// A hand-driven WebSocket client over `RawSocket`: it frames exactly what a test
/// asks for, valid or not, and reads frames back without judging them.
package final class RawWebSocket {
    /// One frame as read from the wire.
    package struct Frame: Equatable {
        package var fin: Bool
        package var opcode: UInt8
        package var payload: [UInt8]

        /// A frame with `fin`, `opcode` and `payload`.
        package init(fin: Bool, opcode: UInt8, payload: [UInt8]) {
            self.fin = fin
            self.opcode = opcode
            self.payload = payload
        }

        /// For a close frame: the code, if any.
        package var closeCode: UInt16? {
            opcode == 0x8 && payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil
        }
    }

    package let socket: RawSocket
    /// The response headers of the handshake.
    package let handshake: String

    /// Opens `path` on the server (from `source`, see `RawSocket`) and completes the upgrade.
    package init(port: Int, path: String, extraHeaders: [String] = [], source: String? = nil) throws {
        socket = try RawSocket(port: port, source: source)
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        for header in extraHeaders { request += header + "\r\n" }
        try socket.send(Array((request + "\r\n").utf8))
        handshake = String(decoding: try socket.read(until: Array("\r\n\r\n".utf8)), as: UTF8.self)
    }

    /// Sends one frame; masked unless `masked` is false; `rsv` sets bits 4–6 of byte 0.
    package func send(opcode: UInt8, payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true) throws {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | (rsv << 4) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ..<126: frame.append(maskBit | UInt8(payload.count))
        case ...0xFFFF: frame += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            frame += [maskBit | 127] + (0..<8).map { UInt8((UInt64(payload.count) >> (56 - 8 * UInt64($0))) & 0xFF) }
        }
        if masked {
            let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
            frame += mask
            frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        } else {
            frame += payload
        }
        try socket.send(frame)
    }

    /// Sends a text frame.
    package func send(text: String, fin: Bool = true) throws {
        try send(opcode: 0x1, payload: Array(text.utf8), fin: fin)
    }

    /// Reads one frame.
    package func readFrame() throws -> Frame {
        let head = try socket.read(exactly: 2)
        var length = Int(head[1] & 0x7F)
        if length == 126 {
            let bytes = try socket.read(exactly: 2)
            length = Int(bytes[0]) << 8 | Int(bytes[1])
        } else if length == 127 {
            length = try socket.read(exactly: 8).reduce(0) { $0 << 8 | Int($1) }
        }
        let payload = head[1] & 0x80 != 0 ? [] : try socket.read(exactly: length)
        return Frame(fin: head[0] & 0x80 != 0, opcode: head[0] & 0x0F, payload: payload)
    }

    /// Reads frames until a close frame (returned) or the end of the connection (nil).
    package func readUntilClose() -> Frame? {
        while let frame = try? readFrame() {
            if frame.opcode == 0x8 { return frame }
        }
        return nil
    }
}
