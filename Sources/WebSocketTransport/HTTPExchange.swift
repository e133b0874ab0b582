import Locking

/// One HTTP request in flight on the service thread, from its head to its response.
///
/// It moves one way, from `receiving` (collecting the body) to `answering` (the
/// application is asked, once), so no event lws repeats can start a second answer
/// for the same request.
final class HTTPExchange {
    let wsi: OpaquePointer
    private(set) var request: HTTPRequest
    /// Filled by the task that answers; read by the service thread when it is woken.
    let response = Locked<HTTPResponse?>(nil)
    /// HEAD: the response is written without its body.
    let omitsBody: Bool
    private var receiving = true

    init(wsi: OpaquePointer, request: HTTPRequest, omitsBody: Bool) {
        self.wsi = wsi
        self.request = request
        self.omitsBody = omitsBody
    }

    /// Adds a chunk of the body while receiving; lws delivers no more than the checked
    /// `Content-Length`.
    func appendBody(_ chunk: UnsafeRawBufferPointer) {
        guard receiving else { return }
        request.body.append(contentsOf: chunk)
    }

    /// Ends receiving and returns the request to answer; nil when it already ended
    /// (lws reported the end of the body again).
    func beginAnswering() -> HTTPRequest? {
        guard receiving else { return nil }
        receiving = false
        return request
    }
}
