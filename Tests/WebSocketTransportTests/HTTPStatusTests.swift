import Testing

@testable import WebSocketTransport

/// The reason phrases the server writes in its status lines.
@Suite("HTTP status lines")
struct HTTPStatusTests {
    @Test("an empty or non-standard phrase from lws is replaced; the version and the headers stay")
    func rewritesTheStatusLine() {
        let cases: [(String, String)] = [
            ("HTTP/1.1 202 \r\ncontent-type: a\r\n", "HTTP/1.1 202 Accepted\r\ncontent-type: a\r\n"),
            ("HTTP/1.0 413 Request Entity Too Large\r\n", "HTTP/1.0 413 Content Too Large\r\n"),
            ("HTTP/1.1 429 \r\n", "HTTP/1.1 429 Too Many Requests\r\n"),
            ("HTTP/1.1 299 \r\n", "HTTP/1.1 299 Unknown\r\n"),
            ("no status line", "no status line"),
        ]
        for (written, expected) in cases {
            #expect(String(decoding: HTTPStatus.withReasonPhrase(Array(written.utf8)), as: UTF8.self) == expected)
        }
    }
}
