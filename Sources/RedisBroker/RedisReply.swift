import CHiredis

/// One reply from Redis, copied out of hiredis's reply object.
enum RedisReply: Sendable, Equatable {
    /// A bulk string or a status reply.
    case string([UInt8])
    case integer(Int64)
    case array([RedisReply])
    case null
    /// An error reply, such as `OOM command not allowed…`.
    case error(String)

    /// Copies `reply` (which the caller still frees).
    init(_ reply: UnsafePointer<redisReply>) {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING, REDIS_REPLY_STATUS:
            self = .string(Self.bytes(value.str, count: value.len))
        case REDIS_REPLY_ERROR:
            self = .error(String(decoding: Self.bytes(value.str, count: value.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            self = .integer(value.integer)
        case REDIS_REPLY_ARRAY:
            self = .array((0..<value.elements).compactMap { value.element[$0].map { RedisReply(UnsafePointer($0)) } })
        default:
            self = .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, count: Int) -> [UInt8] {
        guard let pointer else { return [] }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
            Array(UnsafeBufferPointer(start: $0, count: count))
        }
    }

    /// The bytes of a string reply.
    var bytes: [UInt8]? {
        if case .string(let bytes) = self { bytes } else { nil }
    }

    /// The elements of an array reply.
    var elements: [RedisReply]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    /// The value of an integer reply, or of a string reply holding digits.
    var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .string(let bytes): Int64(String(decoding: bytes, as: UTF8.self))
        default: nil
        }
    }

    /// The message of an error reply.
    var errorMessage: String? {
        if case .error(let message) = self { message } else { nil }
    }
}
