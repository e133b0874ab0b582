import Testing
import WebSocketTransport

/// `If-None-Match` evaluation (RFC 9110 §13.1.2), without a socket.
@Suite("If-None-Match")
struct IfNoneMatchTests {
    let etag = #""0123456789abcdef""#

    @Test("the same tag, weak on either side, matches")
    func sameTag() {
        #expect(IfNoneMatch.matches(etag, etag: etag))
        #expect(IfNoneMatch.matches("W/" + etag, etag: etag))
        #expect(IfNoneMatch.matches(etag, etag: "W/" + etag))
        #expect(IfNoneMatch.matches(" \t" + etag + " ", etag: etag))
    }

    @Test("a tag anywhere in a list matches, commas inside quotes included")
    func lists() {
        #expect(IfNoneMatch.matches(#""a", W/"b", "# + etag, etag: etag))
        #expect(IfNoneMatch.matches(etag + #","a""#, etag: etag))
        #expect(IfNoneMatch.matches(#", ,"a,b" ,"# + etag, etag: etag))
        #expect(!IfNoneMatch.matches(#""a", W/"b""#, etag: etag))
        #expect(IfNoneMatch.matches(#""a,b""#, etag: #""a,b""#))
        #expect(!IfNoneMatch.matches(#""a", "b""#, etag: #""a,b""#))
    }

    @Test("* matches any tag, but not inside a list")
    func star() {
        #expect(IfNoneMatch.matches("*", etag: etag))
        #expect(IfNoneMatch.matches(" * ", etag: etag))
        #expect(!IfNoneMatch.matches(#"*, "x""#, etag: etag))
    }

    @Test("a different, unquoted, lowercase-weak or malformed tag does not match")
    func mismatches() {
        #expect(!IfNoneMatch.matches(#""0123456789abcdeF""#, etag: etag))
        #expect(!IfNoneMatch.matches("0123456789abcdef", etag: etag))
        #expect(!IfNoneMatch.matches("w/" + etag, etag: etag))
        #expect(!IfNoneMatch.matches(#""0123456789abcdef"#, etag: etag))
        #expect(!IfNoneMatch.matches(#"junk, "# + etag, etag: etag))
        #expect(!IfNoneMatch.matches("", etag: etag))
        #expect(!IfNoneMatch.matches(etag, etag: "not a tag"))
    }
}
