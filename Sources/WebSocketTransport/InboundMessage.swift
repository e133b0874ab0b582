/// One whole WebSocket message received from the peer, fragments already joined.
public struct InboundMessage: Sendable, Equatable {
    /// The payload.
    public var bytes: [UInt8]
    /// True for a binary message, false for text (which lws has checked is valid UTF-8).
    public var isBinary: Bool

    /// A message of `bytes`.
    public init(bytes: [UInt8], isBinary: Bool = false) {
        self.bytes = bytes
        self.isBinary = isBinary
    }

    /// The payload as a string (lossy for binary payloads).
    public var text: String { String(decoding: bytes, as: UTF8.self) }
}
