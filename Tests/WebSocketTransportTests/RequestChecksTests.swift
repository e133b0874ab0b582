import Testing

@testable import WebSocketTransport

/// The request-head rules, without a socket.
@Suite("request checks")
struct RequestChecksTests {
    private func head(_ headers: [String: [String]], method: String = "POST", version: String? = "HTTP/1.1")
        -> RequestHead
    {
        RequestHead(method: method, target: "/v1/locations", version: version, headers: headers)
    }

    @Test("Content-Length: plain digits that agree; anything else is 400, past the limit 413")
    func contentLength() {
        let ok = ["2", " 2", "2 ", "0"]
        for value in ok {
            #expect(
                (try? RequestFraming.bodyLength(of: head(["host": ["x"], "content-length": [value]]), bodyLimit: 10)
                    .get()) != nil)
        }
        for value in ["-1", "+5", "5x", "", "0x1", "5 5", "5, 6", String(repeating: "9", count: 30)] {
            let refusal = RequestFraming.bodyLength(
                of: head(["host": ["x"], "content-length": [value]]), bodyLimit: 10
            ).failureValue
            #expect(refusal?.status == 400, "\(value)")
        }
        #expect(
            RequestFraming.bodyLength(of: head(["host": ["x"], "content-length": ["5", "6"]]), bodyLimit: 10)
                .failureValue?.status == 400)
        #expect(
            RequestFraming.bodyLength(of: head(["host": ["x"], "content-length": ["11"]]), bodyLimit: 10)
                .failureValue?.status == 413)
    }

    @Test("Transfer-Encoding is refused; a POST without Content-Length is 411")
    func transferEncoding() {
        let both = head(["host": ["x"], "content-length": ["4"], "transfer-encoding": ["chunked"]])
        #expect(RequestFraming.bodyLength(of: both, bodyLimit: 10).failureValue?.status == 400)
        let chunked = head(["host": ["x"], "transfer-encoding": ["chunked"]])
        #expect(RequestFraming.bodyLength(of: chunked, bodyLimit: 10).failureValue?.status == 411)
        #expect(RequestFraming.bodyLength(of: head(["host": ["x"]]), bodyLimit: 10).failureValue?.status == 411)
        #expect((try? RequestFraming.bodyLength(of: head(["host": ["x"]], method: "GET"), bodyLimit: 10).get()) == 0)
    }

    @Test("Host: one in HTTP/1.1, optional in 1.0; other versions 505")
    func hostAndVersion() {
        #expect(RequestFraming.bodyLength(of: head([:], method: "GET"), bodyLimit: 0).failureValue?.status == 400)
        #expect(
            RequestFraming.bodyLength(of: head(["host": ["a", "a"]], method: "GET"), bodyLimit: 0).failureValue?.status
                == 400)
        #expect(
            (try? RequestFraming.bodyLength(of: head([:], method: "GET", version: "HTTP/1.0"), bodyLimit: 0).get()) == 0
        )
        #expect(
            RequestFraming.bodyLength(of: head(["host": ["a"]], method: "GET", version: "HTTP/2.0"), bodyLimit: 0)
                .failureValue?.status == 505)
    }

    @Test("a handshake needs version 13, a 16-byte key and, if any, a supported sub-protocol")
    func handshake() {
        var headers: [String: [String]] = [
            "host": ["x"], "connection": ["keep-alive, Upgrade"], "upgrade": ["websocket"],
            "sec-websocket-version": ["13"], "sec-websocket-key": ["dGhlIHNhbXBsZSBub25jZQ=="],
        ]
        let check = { (headers: [String: [String]]) in
            HandshakeCheck.refusal(of: head(headers, method: "GET"), subprotocol: "locstream.v1", bodyLimit: 0)?.status
        }
        #expect(check(headers) == nil)
        headers["sec-websocket-protocol"] = ["chat, locstream.v1"]
        #expect(check(headers) == nil)
        headers["sec-websocket-protocol"] = ["chat"]
        #expect(check(headers) == 400)
        headers["sec-websocket-protocol"] = nil
        headers["sec-websocket-key"] = ["a"]
        #expect(check(headers) == 400)
        headers["sec-websocket-key"] = ["dGhlIHNhbXBsZSBub25jZQ=="]
        headers["sec-websocket-version"] = ["8"]
        #expect(check(headers) == 426)
    }
}

extension Result {
    /// The error, if this is a failure.
    fileprivate var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
