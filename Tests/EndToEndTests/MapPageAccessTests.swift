import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The map page on a server with `--auth jwt` and on one with `--map-tiles`, in a real
    /// headless Chromium: a token from the URL fragment streams, a refused one is shown in red
    /// and not retried; tiles of a loopback tile server are requested and drawn; a view over
    /// `--max-area-km2` shows clusters and says so on the map.
    @Suite("map page: tokens, tiles, area limit", .enabled(if: WebDriver.isAvailable, "needs chromium-driver"))
    struct MapPageAccessTests {
        /// What `window.locstream` and the page show.
        static let probe = """
            const l = window.locstream;
            if (!l) return null;
            const error = document.getElementById("p-error");
            return {state: l.state, markers: l.markers().length, refusal: l.refusal, notice: l.notice,
                    errorColor: getComputedStyle(error).color, errorShown: error.offsetParent !== null,
                    errors: l.errors};
            """

        static func state(
            _ driver: WebDriver, within timeout: Duration, until condition: @escaping ([String: Any]) -> Bool
        )
            async throws -> [String: Any]
        {
            let (value, met) = try await driver.wait(for: probe, within: timeout) {
                ($0 as? [String: Any]).map(condition) ?? false
            }
            let state = value as? [String: Any] ?? [:]
            #expect(met, "the page did not get there: \(state)")
            return state
        }

        /// The sum of metric `name` over its labels.
        static func total(_ name: String, of server: ServerHarness) throws -> Int {
            try server.metrics().filter { $0.key == name || $0.key.hasPrefix(name + "{") }.values.reduce(0, +)
        }

        @Test("--auth jwt: a token in #token= shows devices; a bad one shows 'unauthorized' in red, once")
        func tokens() async throws {
            let server = try await ServerHarness(TestTokens.serverOptions())
            let publisher = try TestTokens.make(expiresIn: 600)
            let simulator = try ClientProcess([
                "simulate", server.url(""), "--devices", "50", "--rate", "1", "--duration", "30", "--seed", "7",
                "--token", publisher,
            ])
            defer { simulator.signal(SIGKILL) }
            let driver = try await WebDriver()
            defer { driver.quit() }

            let viewer = try TestTokens.make(expiresIn: 600, areas: true)
            try driver.navigate(to: server.url("/#token=\(viewer)", scheme: "http"))
            let shown = try await Self.state(driver, within: .seconds(20)) {
                $0["state"] as? String == "connected" && ($0["markers"] as? Int ?? 0) > 0
            }
            #expect(shown["refusal"] as? String == "", "\(shown)")
            #expect(shown["errors"] as? [String] == [], "\(shown)")

            let failuresBefore = try Self.total("locstream_auth_failures_total", of: server)
            try driver.navigate(to: server.url("/index.html#token=not-a-token", scheme: "http"))
            let refused = try await Self.state(driver, within: .seconds(20)) { $0["state"] as? String == "refused" }
            #expect((refused["refusal"] as? String)?.hasPrefix("unauthorized:") == true, "\(refused)")
            #expect(refused["errorShown"] as? Bool == true)
            #expect(refused["errorColor"] as? String == "rgb(248, 113, 113)", "\(refused)")
            try Screenshots.save(driver, as: "map-refused.png")
            // No retry loop: a few reconnect periods later, still one refusal and no new connection.
            let connections = try Self.total("locstream_connections_opened_total", of: server)
            try await Task.sleep(for: .seconds(3))
            let failuresAfter = try Self.total("locstream_auth_failures_total", of: server)
            #expect(failuresAfter - failuresBefore == 1, "auth failures went \(failuresBefore) → \(failuresAfter)")
            #expect(try Self.total("locstream_connections_opened_total", of: server) == connections)
            _ = await server.stop()
        }

        /// A 8×8 PNG checkerboard: every tile the tile server serves.
        static let tile = Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAG0lEQVR4nGPQ8rWCI6vsIDhioKIEMgdZERUlALD0NQHFi4VeAAAAAElFTkSuQmCC"
        )!

        @Test("--map-tiles: the loopback tile server's tiles are requested and drawn; a wide view shows clusters")
        func tiles() async throws {
            let directory = try TemporaryDirectory()
            _ = try directory.file("tile.png", Array(Self.tile))
            let tilePort = try LoopbackPort.free()
            let tileServer = try ClientProcess(
                URL(fileURLWithPath: "/usr/bin/python3"),
                ["-u", "-m", "http.server", "\(tilePort)", "--bind", "127.0.0.1", "--directory", directory.url.path])
            defer { tileServer.signal(SIGKILL) }
            #expect(await tileServer.stdout.firstLine(containing: "Serving HTTP", within: .seconds(10)) != nil)

            let template = "http://127.0.0.1:\(tilePort)/tile.png?z={z}&x={x}&y={y}"
            let server = try await ServerHarness([
                "--map-tiles", template, "--map-attribution", "Loopback test tiles", "--max-area-km2", "20000",
            ])
            let driver = try await WebDriver()
            defer { driver.quit() }
            try driver.navigate(to: server.url("/", scheme: "http"))
            let drawn = try await driver.wait(
                for: """
                    const tiles = [...document.querySelectorAll("img.leaflet-tile-loaded")];
                    return {loaded: tiles.length, drawn: tiles.filter((t) => t.complete && t.naturalWidth === 8).length,
                            credit: document.querySelector(".leaflet-control-attribution")?.textContent || ""};
                    """, within: .seconds(20)
            ) { (($0 as? [String: Any])?["drawn"] as? Int ?? 0) >= 4 }
            #expect(drawn.met, "tiles not drawn: \(drawn.value)")
            let credit = (drawn.value as? [String: Any])?["credit"] as? String ?? ""
            #expect(credit.contains("Loopback test tiles"), "attribution: \(credit)")
            #expect(await tileServer.stderr.firstLine(containing: "GET /tile.png?z=", within: .seconds(5)) != nil)
            let home = try await Self.state(driver, within: .seconds(10)) { $0["state"] as? String == "connected" }
            #expect(home["notice"] as? String == "", "\(home)")
            // Nothing changes (no device, no move): the device canvas is not drawn again.
            let draws = try driver.execute("return window.locstream.draws;") as? Int
            try await Task.sleep(for: .milliseconds(1500))
            #expect(try driver.execute("return window.locstream.draws;") as? Int == draws)
            try Screenshots.save(driver, as: "map-tiles.png")

            // Zoomed out past --max-area-km2: clusters (an aggregated subscription), and the map says so.
            _ = try driver.execute("window.locstream.zoomBy(-4); return null;")
            let wide = try await Self.state(driver, within: .seconds(10)) {
                ($0["notice"] as? String ?? "").contains("zoom in") && $0["state"] as? String == "connected"
            }
            #expect((wide["notice"] as? String ?? "").hasPrefix("Clusters of "), "\(wide)")
            let visible = try driver.execute(#"return !document.getElementById("notice").hidden;"#)
            #expect(visible as? Bool == true)
            #expect(wide["errors"] as? [String] == [], "\(wide)")
            _ = await server.stop()
        }
    }
}
