/// A request that failed, as the server reports it in an `error` frame.
public struct ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The machine-readable reason.
    public var code: ErrorCode
    /// What was wrong, in words.
    public var message: String
    /// The `op` of the request that failed, when it is known.
    public var failedOp: String?

    /// Creates an error with a code, a human message and, when known, the op that failed.
    public init(_ code: ErrorCode, _ message: String, failedOp: String? = nil) {
        self.code = code
        self.message = message
        self.failedOp = failedOp
    }

    /// `code: message`, for logs.
    public var description: String { "\(code.rawValue): \(message)" }
}
