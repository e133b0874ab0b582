import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// locstream.js, the browser library, in a real headless Chromium against a real server:
    /// its cases (`clients/js/test/locstream.test.js`: switching, reconnects, tokens, refusals,
    /// aggregated areas) run in the page, which imports the library from the server's
    /// `/locstream.js`; this suite starts them, kills and restarts the server where a case
    /// needs it, and reads each case's failures over WebDriver.
    @Suite("locstream.js in a headless browser", .enabled(if: WebDriver.isAvailable, "needs chromium-driver"))
    struct LocstreamJSTests {
        /// The test module, read from the repository.
        static let cases = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../clients/js/test/locstream.test.js").standardized

        /// Opens a page of `server` and loads the cases into it.
        static func page(_ server: ServerHarness) async throws -> WebDriver {
            let driver = try await WebDriver()
            try driver.navigate(to: server.url("/healthz", scheme: "http"))
            let module = try String(contentsOf: cases, encoding: .utf8)
            _ = try driver.execute(
                """
                const script = document.createElement("script");
                script.type = "module";
                script.textContent = arguments[0];
                document.head.appendChild(script);
                return null;
                """, [module])
            let loaded = try await driver.wait(for: "return !!window.locstreamTests;", within: .seconds(10)) {
                ($0 as? Bool) == true
            }
            #expect(loaded.met, "the test module did not load: \(driver.browserLog() ?? [])")
            return driver
        }

        /// Starts case `name` with `options` (JSON).
        static func start(_ driver: WebDriver, _ name: String, _ options: [String: Any] = [:]) throws {
            _ = try driver.execute(
                "window.locstreamTests.start(arguments[0], arguments[1]); return null;", [name, options])
        }

        /// Case `name`'s result once `condition` holds for it (by default: it is done), within `timeout`.
        static func result(
            _ driver: WebDriver, _ name: String, within timeout: Duration,
            until condition: @escaping ([String: Any]) -> Bool = { $0["done"] as? Bool == true }
        ) async throws -> [String: Any] {
            let (value, met) = try await driver.wait(
                for: "return window.locstreamTests.cases[\"\(name)\"] || null;", within: timeout
            ) { ($0 as? [String: Any]).map(condition) ?? false }
            let result = value as? [String: Any] ?? [:]
            #expect(met, "\(name) did not get there: \(result)")
            return result
        }

        static func failures(_ result: [String: Any]) -> [String] { result["failures"] as? [String] ?? ["no result"] }

        @Test(
            "switch reuses the connection with no event of the aborted iteration; cells of an aggregated area; reconnect resumes after a restart"
        )
        func switchAndReconnect() async throws {
            let data = try TemporaryDirectory()
            let arguments = ["--data-dir", data.url.path] + ServerHarness.floodLimits
            var server = try await ServerHarness(arguments)
            let port = server.port
            let driver = try await Self.page(server)
            defer { driver.quit() }

            try Self.start(driver, "switching")
            let switched = try await Self.result(driver, "switching", within: .seconds(60))
            #expect(Self.failures(switched) == [], "\(switched)")
            #expect(switched["switches"] as? Int == 8)

            try Self.start(driver, "aggregating")
            let aggregated = try await Self.result(driver, "aggregating", within: .seconds(30))
            #expect(Self.failures(aggregated) == [], "\(aggregated)")
            #expect(aggregated["total"] as? Int == 29, "\(aggregated)")

            // An aggregated area and a device subscription live through the same restart.
            try Self.start(driver, "aggregateResuming")
            _ = try await Self.result(driver, "aggregateResuming", within: .seconds(20)) {
                $0["phase"] as? String == "live"
            }
            try Self.start(driver, "reconnecting")
            _ = try await Self.result(driver, "reconnecting", within: .seconds(20)) {
                $0["phase"] as? String == "quiet"
            }
            _ = await server.stop(signal: SIGKILL)
            _ = try await Self.result(driver, "reconnecting", within: .seconds(20)) {
                ($0["reconnecting"] as? Int ?? 0) > 0
            }
            server = try await ServerHarness(arguments + ["--port", "\(port)"])
            let resumed = try await Self.result(driver, "reconnecting", within: .seconds(60))
            #expect(Self.failures(resumed) == [], "\(resumed)")
            #expect((resumed["afterResume"] as? Int ?? 0) >= 10, "\(resumed)")
            let recounted = try await Self.result(driver, "aggregateResuming", within: .seconds(30))
            #expect(Self.failures(recounted) == [], "\(recounted)")
            _ = await server.stop()
        }

        @Test("a token is refreshed on 'token expiring'; refusals carry the server's code and are not retried")
        func tokensAndRefusals() async throws {
            let server = try await ServerHarness(
                TestTokens.serverOptions(["--token-warning", "3", "--jwt-leeway", "0"]) + ServerHarness.floodLimits)
            let driver = try await Self.page(server)
            defer { driver.quit() }
            let tokens: [String: Any] = [
                "short": [try TestTokens.make(expiresIn: 4), try TestTokens.make(expiresIn: 600)],
                "long": try TestTokens.make(expiresIn: 600, areas: true),
                "narrow": try TestTokens.make(expiresIn: 600, devices: ["other-*"]),
            ]
            try Self.start(driver, "refreshing", ["tokens": tokens])
            let refreshed = try await Self.result(driver, "refreshing", within: .seconds(30))
            #expect(Self.failures(refreshed) == [], "\(refreshed)")
            #expect(refreshed["providerCalls"] as? Int == 2, "\(refreshed)")

            try Self.start(driver, "refusals", ["tokens": tokens])
            let refused = try await Self.result(driver, "refusals", within: .seconds(30))
            #expect(Self.failures(refused) == [], "\(refused)")
            _ = await server.stop()
        }
    }
}
