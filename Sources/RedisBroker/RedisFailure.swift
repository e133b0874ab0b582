/// A connection to Redis failed or timed out, or Redis sent something unreadable; the
/// link reconnects.
struct RedisFailure: Error, CustomStringConvertible {
    /// What happened, in words.
    var description: String
    /// Whether commands may have reached Redis before the failure (it came after they
    /// were written): Redis may have run them, so their outcome is unknown.
    var outcomeUnknown = false

    init(_ description: String, outcomeUnknown: Bool = false) {
        self.description = description
        self.outcomeUnknown = outcomeUnknown
    }
}
