/// One reply from Redis, copied out of hiredis's reply object (`RedisReply+Hiredis`).
///
/// This file and the decoders built on it import no C, so the fuzzer can build them alone.
enum RedisReply: Sendable, Equatable {
    /// A bulk string or a status reply.
    case string([UInt8])
    case integer(Int64)
    case array([RedisReply])
    case null
    /// An error reply, such as `OOM command not allowed…`.
    case error(String)

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
