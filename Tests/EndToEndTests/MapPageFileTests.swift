import TestSupport
import Testing

extension EndToEnd {
    /// The map page's files and locstream.js over plain HTTP: content types, entity tags and
    /// `304 Not Modified`, against a real server.
    @Suite("map page files")
    struct MapPageFileTests {
        /// Each file's path, content type and a fragment of its body.
        static let files = [
            ("/", "text/html; charset=utf-8", #"<script type="module" src="/map.js"></script>"#),
            ("/locstream.js", "text/javascript; charset=utf-8", "export class LocstreamClient"),
            ("/javascript/leaflet/leaflet.js", "text/javascript; charset=utf-8", "Leaflet"),
            ("/javascript/leaflet/leaflet.css", "text/css; charset=utf-8", ".leaflet-"),
            ("/map.js", "text/javascript; charset=utf-8", "window.locstream = {"),
            ("/map.css", "text/css; charset=utf-8", "#map {"),
        ]

        @Test("each file has its content type and a strong ETag; If-None-Match gets 304 or 200")
        func conditionalGet() async throws {
            let server = try await ServerHarness()
            var tags: Set<String> = []
            for (path, contentType, fragment) in Self.files {
                let full = try RawHTTPResponse.fetch(port: server.port, path: path)
                #expect(full.status == 200, "\(path)")
                #expect(full.header("content-type") == contentType, "\(path)")
                #expect(full.header("cache-control") == "no-cache", "\(path)")
                #expect(full.body.contains(fragment), "\(path)")
                let etag = try #require(full.header("etag"), "\(path)")
                #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count > 2, "\(path): \(etag)")
                tags.insert(etag)

                for condition in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
                    let cached = try RawHTTPResponse.fetch(
                        port: server.port, path: path, headers: ["If-None-Match: \(condition)"])
                    #expect(cached.status == 304, "\(path) with \(condition)")
                    #expect(cached.header("etag") == etag, "\(path) with \(condition)")
                    #expect(cached.body.isEmpty, "\(path) with \(condition)")
                }
                let stale = try RawHTTPResponse.fetch(
                    port: server.port, path: path, headers: [#"If-None-Match: "0000000000000000""#])
                #expect(stale.status == 200, "\(path)")
                #expect(stale.body == full.body, "\(path)")

                let head = try RawHTTPResponse.fetch(port: server.port, method: "HEAD", path: path)
                #expect(head.status == 200 && head.header("etag") == etag && head.body.isEmpty, "\(path)")
            }
            #expect(tags.count == Self.files.count, "the files share an ETag: \(tags)")
            #expect(try RawHTTPResponse.fetch(port: server.port, path: "/index.html").header("etag") != nil)
            _ = await server.stop()
        }

        @Test("without Leaflet in --leaflet-dir its paths are 404 and the log says how to install it")
        func leafletMissing() async throws {
            let empty = try TemporaryDirectory()
            let server = try await ServerHarness(["--leaflet-dir", empty.url.path])
            #expect(try RawHTTPResponse.fetch(port: server.port, path: "/javascript/leaflet/leaflet.js").status == 404)
            let warning = await server.logLine(containing: "Leaflet not found")
            #expect(warning?.contains("libjs-leaflet") == true, "\(server.log)")
            #expect(try RawHTTPResponse.fetch(port: server.port, path: "/").status == 200)
            _ = await server.stop()
        }
    }
}
