import CHiredis

extension RedisReply {
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
}
