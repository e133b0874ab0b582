import Locking

/// One HTTP request in flight on the service thread: its body as it arrives, and
/// the slot the answering task fills with the response.
final class HTTPExchange {
    let wsi: OpaquePointer
    private(set) var request: HTTPRequest
    /// Filled by the task that answers; read by the service thread when writable.
    let response = Locked<HTTPResponse?>(nil)
    var headersSent = false
    private(set) var bodyTooLarge = false
    private let bodyLimit: Int

    init(wsi: OpaquePointer, request: HTTPRequest, bodyLimit: Int) {
        self.wsi = wsi
        self.request = request
        self.bodyLimit = bodyLimit
    }

    /// Adds a chunk of the body; past the limit the body is dropped and marked too large.
    func appendBody(_ chunk: UnsafeRawBufferPointer) {
        guard !bodyTooLarge else { return }
        guard request.body.count + chunk.count <= bodyLimit else {
            bodyTooLarge = true
            request.body = []
            return
        }
        request.body.append(contentsOf: chunk)
    }

    /// Sets the response directly (for answers the transport gives itself).
    func respondNow(_ response: HTTPResponse) {
        self.response.withLock { $0 = response }
    }
}
