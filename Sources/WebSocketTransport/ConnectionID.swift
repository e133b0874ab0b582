/// A connection's number, unique within one process.
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The number itself.
    public let rawValue: UInt64

    /// Wraps a number.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    public var description: String { String(rawValue) }

    /// Packs the id into the pointer-sized user data lws keeps per connection.
    var opaque: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: UInt(rawValue)) }

    /// Reads the id back from lws's per-connection user data.
    init?(opaque: UnsafeMutableRawPointer?) {
        guard let opaque else { return nil }
        self.init(UInt64(UInt(bitPattern: opaque)))
    }
}
