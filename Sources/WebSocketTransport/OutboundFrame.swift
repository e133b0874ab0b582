/// One WebSocket message waiting to be written.
///
/// Its payload is `head + body`. Both are shared, already-encoded bytes: a location is
/// encoded once as `body` and reaches every subscriber, each adding only its own small
/// `head` (the `{"op":"loc","sub":"…",` prefix). Copying a frame copies two references.
public struct OutboundFrame: Sendable {
    /// Text or binary.
    public var opcode: Opcode
    /// Bytes written before `body`; often empty.
    public var head: [UInt8]
    /// The shared payload.
    public var body: [UInt8]
    /// Frames with the same key may replace each other when the peer is slow
    /// (a location frame's key is its device); nil never conflates.
    public var key: String?

    /// The payload length on the wire.
    public var payloadCount: Int { head.count + body.count }

    /// A frame whose payload is `head + body`.
    public init(opcode: Opcode = .text, head: [UInt8] = [], body: [UInt8], key: String? = nil) {
        self.opcode = opcode
        self.head = head
        self.body = body
        self.key = key
    }

    /// A text frame of `text`. For the tests (package access); the server builds its
    /// frames from bytes.
    package init(text: String) {
        self.init(opcode: .text, body: Array(text.utf8))
    }

    /// The two data opcodes of RFC 6455.
    public enum Opcode: UInt8, Sendable {
        case text = 0x1
        case binary = 0x2
    }
}
