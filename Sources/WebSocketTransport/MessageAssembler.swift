/// Joins the chunks lws delivers into whole messages, enforcing the size limit.
///
/// lws hands over at most `pt_serv_buf_size` bytes per RECEIVE, and a message ends
/// when `lws_is_final_fragment` is true (the last chunk may be empty). lws itself
/// sets no size limit, so this does.
struct MessageAssembler {
    /// What one chunk made of the message in progress.
    enum Outcome: Equatable {
        case partial
        case complete(InboundMessage)
        case tooLarge
    }

    let limit: Int
    private var bytes: [UInt8] = []
    private var isBinary = false
    private var started = false

    init(limit: Int) { self.limit = limit }

    /// Adds a chunk of the current message.
    mutating func append(_ chunk: UnsafeRawBufferPointer, isFinal: Bool, isBinary: Bool) -> Outcome {
        if !started {
            started = true
            self.isBinary = isBinary
        }
        guard bytes.count + chunk.count <= limit else {
            bytes = []
            started = false
            return .tooLarge
        }
        bytes.append(contentsOf: chunk)
        guard isFinal else { return .partial }
        defer {
            bytes = []
            started = false
        }
        return .complete(InboundMessage(bytes: bytes, isBinary: self.isBinary))
    }
}
