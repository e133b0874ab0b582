import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The live map page at `GET /`, in a real headless Chromium (through `chromedriver`)
    /// against a real server and a running simulator: it loads cleanly, shows devices,
    /// switches its area subscription on a pan without stale frames, follows a clicked device,
    /// and reconnects after the server restarts.
    @Suite("live map page in a headless browser", .enabled(if: WebDriver.isAvailable, "needs chromium-driver"))
    struct MapPageTests {
        /// What `window.locstream` reports.
        struct PageState: Decodable {
            var sub: String?
            var state: String
            var reconnects: Int
            var stale: Int
            var markers: Int
            var errors: [String]
        }

        static let probe = """
            const l = window.locstream;
            if (!l) return null;
            return {sub: l.sub, state: l.state, reconnects: l.reconnects, stale: l.stale,
                    markers: l.markers().length, errors: l.errors};
            """

        static func state(_ driver: WebDriver) throws -> PageState? {
            let value = try driver.execute(probe)
            guard !(value is NSNull) else { return nil }
            return try JSONDecoder().decode(PageState.self, from: JSONSerialization.data(withJSONObject: value))
        }

        /// Polls the page until `condition` holds, for at most `timeout`.
        static func waitFor(
            _ driver: WebDriver, within timeout: Duration, _ condition: (PageState) -> Bool
        ) async throws -> PageState? {
            let deadline = ContinuousClock.now + timeout
            var last = try state(driver)
            while last.map(condition) != true, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                last = try state(driver)
            }
            return last
        }

        @Test("GET / serves the page with HTML content type and no-cache")
        func servesThePage() async throws {
            let server = try await ServerHarness()
            for path in ["/", "/index.html"] {
                let response = try RawHTTPResponse.fetch(port: server.port, path: path)
                #expect(response.status == 200)
                let headers = response.headers.lowercased()
                #expect(headers.contains("content-type: text/html; charset=utf-8"))
                #expect(headers.contains("cache-control: no-cache"))
                #expect(headers.contains("etag: \""))
                #expect(response.body.contains("<div id=\"map\""))
                #expect(!response.body.contains("http://") && !response.body.contains("https://"))
            }
            #expect(try RawHTTPResponse.fetch(port: server.port, path: "/nope.html").status == 404)
            _ = await server.stop()
        }

        @Test("the page shows devices, pans without stale frames, and reconnects")
        func browser() async throws {
            var server = try await ServerHarness()
            let port = server.port
            let simulator = try ClientProcess([
                "simulate", server.url(""), "--devices", "300", "--rate", "1", "--duration", "30", "--seed", "7",
            ])
            defer { simulator.signal(SIGKILL) }
            let driver = try await WebDriver()
            defer { driver.quit() }
            try driver.navigate(to: server.url("/", scheme: "http"))

            let shown = try await Self.waitFor(driver, within: .seconds(20)) {
                $0.state == "connected" && $0.sub != nil && $0.markers > 0
            }
            #expect(shown?.state == "connected")
            #expect((shown?.markers ?? 0) > 0, "no markers: \(String(describing: shown))")
            #expect(shown?.errors == [])
            if let log = driver.browserLog() {
                let severe = log.filter { $0.level == "SEVERE" }
                #expect(severe.isEmpty, "console errors: \(severe)")
            }

            // Pan: a new sub id, confirmed by `subscribed`; no old-sub frame after that.
            let before = shown?.sub
            _ = try driver.execute("window.locstream.panBy(arguments[0], arguments[1]); return null;", [240, 120])
            let panned = try await Self.waitFor(driver, within: .seconds(10)) {
                $0.sub != nil && $0.sub != before && $0.markers > 0
            }
            #expect(panned?.sub != before && panned?.sub != nil, "sub did not switch: \(String(describing: panned))")
            // 300 devices reporting once a second: the canvas is redrawn, but at most 4 times a second
            // (updates are coalesced; the page does not draw every animation frame).
            let drawsBefore = try driver.execute("return window.locstream.draws;") as? Int ?? 0
            try await Task.sleep(for: .seconds(2))
            let drawsAfter = try driver.execute("return window.locstream.draws;") as? Int ?? 0
            #expect((1...10).contains(drawsAfter - drawsBefore), "\(drawsAfter - drawsBefore) draws in 2 s")
            let settled = try Self.state(driver)
            #expect(settled?.stale == 0)
            #expect((settled?.markers ?? 0) > 0)

            try Screenshots.save(driver, as: "map.png")

            // Click a device: the page follows it, with a device subscription of its own.
            let target =
                try driver.execute(
                    """
                    const l = window.locstream, size = [innerWidth - 260, innerHeight];
                    const id = l.markers().find((d) => { const p = l.pointOf(d);
                        return p && p[0] > 60 && p[1] > 60 && p[0] < size[0] - 20 && p[1] < size[1] - 40; });
                    return id ? {id, point: l.pointOf(id)} : null;
                    """) as? [String: Any]
            let device = try #require(target?["id"] as? String, "no device in view to click")
            let point = try #require(target?["point"] as? [Int])
            try driver.click(x: point[0], y: point[1])
            let following = try await driver.wait(
                for: """
                    const l = window.locstream;
                    return [l.follow, l.markers().join(","), document.getElementById("p-follow").textContent];
                    """,
                within: .seconds(10)
            ) { ($0 as? [Any?])?.compactMap { $0 as? String } == [device, device, device] }
            #expect(following.met, "clicked \(device) at \(point): \(following.value)")
            try Screenshots.save(driver, as: "map-follow.png")

            // Kill the server, start another on the same port: the page reconnects.
            _ = await server.stop(signal: SIGKILL)
            let down = try await Self.waitFor(driver, within: .seconds(10)) { $0.state != "connected" }
            #expect(down?.state != "connected")
            server = try await ServerHarness(["--port", "\(port)"])
            let back = try await Self.waitFor(driver, within: .seconds(30)) {
                $0.state == "connected" && $0.reconnects >= 1 && $0.sub != nil
            }
            #expect(back?.state == "connected", "did not reconnect: \(String(describing: back))")
            #expect((back?.reconnects ?? 0) >= 1)
            #expect(back?.stale == 0)
            #expect(back?.errors == [])
            _ = await server.stop()
        }
    }
}
