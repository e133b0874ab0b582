import Foundation
import LocstreamProtocol
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// `--auth jwt`: tokens on the upgrade or by `auth`, rights per device, expiry and
    /// refresh, and the HTTP routes.
    @Suite("authentication and access control")
    struct AuthEndToEndTests {
        private func expectError(
            _ client: StreamTestClient, _ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation
        ) async {
            let error = await client.nextError(sourceLocation: sourceLocation)
            #expect(error?.code == code, sourceLocation: sourceLocation)
        }

        @Test("until a valid auth, only ping works; then rights apply per device, for subscribe and publish")
        func authOpAndRights() async throws {
            try await ServerHarness.withClient(TestTokens.serverOptions()) { server, client in
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                viewer.send(subscribe("A", ["veh-1"]))
                await expectError(viewer, .unauthorized)
                viewer.send(.ping(t: .integer(1)))
                #expect(await viewer.next() == .pong(t: .integer(1)))
                viewer.send(.auth(token: try TestTokens.make(expiresIn: -120)))
                await expectError(viewer, .unauthorized)
                viewer.send(.auth(token: try TestTokens.make(algorithm: "none")))
                await expectError(viewer, .unauthorized)
                viewer.send(.auth(token: try TestTokens.make(key: "another-secret-that-is-long-enough-0000")))
                await expectError(viewer, .unauthorized)
                let token = try TestTokens.make(subject: "dispatch-7", devices: ["veh-*"], publish: ["veh-1"])
                viewer.send(.auth(token: token))
                guard case .authed(let subject, let exp)? = await viewer.next() else {
                    Issue.record("expected authed")
                    return
                }
                #expect(subject == "dispatch-7" && exp > Int64(Date().timeIntervalSince1970))
                viewer.send(subscribe("A", ["veh-1", "truck-1"]))
                await expectError(viewer, .forbidden)
                viewer.send(subscribe("A", ["veh-1", "veh-2"]))
                #expect(await viewer.next() == .subscribed(sub: "A", restarted: false, snapshot: 0))
                viewer.send(
                    .subscribe(
                        SubscribeRequest(sub: "B", target: .area(.bbox(minLon: 1, minLat: 1, maxLon: 2, maxLat: 2))))
                )
                await expectError(viewer, .forbidden)
                viewer.send(.publish([testLocation("veh-2")], ack: true))
                await expectError(viewer, .forbidden)
                viewer.send(.publish([testLocation("veh-1")], ack: true))
                // The viewer watches veh-1 too, so its own loc frame may come before the ack.
                let replies = [await viewer.next(), await viewer.next()]
                #expect(replies.contains(.published(count: 1)))
                let metrics = try RawHTTPResponse.fetch(port: server.port, path: "/metrics").body
                #expect(metrics.contains(#"locstream_auth_failures_total{reason="expired"} 1"#))
                #expect(!server.log.contains(token), "tokens are never logged")
            }
        }

        @Test("a token on the upgrade, as ?token= or Authorization: Bearer, authenticates at once")
        func upgradeToken() async throws {
            try await ServerHarness.withClient(TestTokens.serverOptions()) { server, client in
                let token = try TestTokens.make()
                let viaQuery = try await StreamTestClient(client, url: server.url("/v1/stream?token=\(token)"))
                viaQuery.send(subscribe("A", ["veh-1"]))
                #expect(await viaQuery.next() == .subscribed(sub: "A", restarted: false, snapshot: 0))
                var options = ClientConnectOptions()
                options.headers = [("Authorization", "Bearer \(token)")]
                let viaHeader = try await StreamTestClient(client, url: server.url("/v1/stream"), options: options)
                viaHeader.send(subscribe("A", ["veh-1"]))
                #expect(await viaHeader.next() == .subscribed(sub: "A", restarted: false, snapshot: 0))
            }
        }

        @Test("no valid token within --auth-timeout closes with 1008")
        func authTimeout() async throws {
            try await ServerHarness.withClient(TestTokens.serverOptions(["--auth-timeout", "1"])) { server, client in
                let idle = try await StreamTestClient(client, url: server.url("/v1/stream"))
                while await idle.nextRaw(within: .seconds(4)) != nil {}
                #expect(idle.connection.peerClose?.code == 1008)
            }
        }

        @Test("shortly before exp a warning arrives; without a refresh the connection closes with 1008 at exp")
        func expiry() async throws {
            let server = try await ServerHarness(
                TestTokens.serverOptions(["--jwt-leeway", "0", "--token-warning", "2"]))
            let client = try await WebSocketClient.start()
            let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
            viewer.send(.auth(token: try TestTokens.make(expiresIn: 4)))
            guard case .authed? = await viewer.next() else {
                Issue.record("expected authed")
                return
            }
            guard case .error(let warning)? = await viewer.next(within: .seconds(6)) else {
                Issue.record("expected the expiry warning")
                return
            }
            #expect(warning.code == .unauthorized && warning.message == "token expiring")
            while await viewer.nextRaw(within: .seconds(6)) != nil {}
            #expect(viewer.connection.peerClose?.code == 1008)
            await client.shutdown()
        }

        @Test("a refresh keeps the subscription without a restart; one with fewer rights ends it with unsubscribed")
        func refresh() async throws {
            try await ServerHarness.withClient(TestTokens.serverOptions()) { server, client in
                let url = server.url("/v1/stream?token=\(try TestTokens.make())")
                let viewer = try await StreamTestClient(client, url: url)
                let publisher = try await StreamTestClient(client, url: url)
                viewer.send(subscribe("A", ["veh-1"]))
                #expect(await viewer.next() == .subscribed(sub: "A", restarted: false, snapshot: 0))
                viewer.send(.auth(token: try TestTokens.make(expiresIn: 1200)))
                guard case .authed? = await viewer.next() else {
                    Issue.record("expected authed")
                    return
                }
                publisher.send(.publish([testLocation("veh-1")], ack: false))
                guard case .loc("A", _)? = await viewer.next() else {
                    Issue.record("the subscription must go on after a refresh")
                    return
                }
                viewer.send(.auth(token: try TestTokens.make(devices: ["truck-*"])))
                guard case .authed? = await viewer.next() else {
                    Issue.record("expected authed")
                    return
                }
                #expect(await viewer.next() == .unsubscribed(sub: "A"))
            }
        }

        @Test("HTTP: POST /v1/locations needs a bearer token with publish rights")
        func httpNeedsToken() async throws {
            let server = try await ServerHarness(TestTokens.serverOptions())
            let body = #"[{"device":"veh-1","lat":1,"lon":2,"ts":3}]"#
            let none = try RawHTTPResponse.fetch(port: server.port, method: "POST", path: "/v1/locations", body: body)
            #expect(none.status == 401 && none.body.contains("unauthorized"))
            let narrow = try TestTokens.make(publish: ["truck-*"])
            let forbidden = try RawHTTPResponse.fetch(
                port: server.port, method: "POST", path: "/v1/locations", body: body,
                headers: ["Authorization: Bearer \(narrow)"])
            #expect(forbidden.status == 403 && forbidden.body.contains("forbidden"))
            let ok = try RawHTTPResponse.fetch(
                port: server.port, method: "POST", path: "/v1/locations", body: body,
                headers: ["Authorization: Bearer \(try TestTokens.make())"])
            #expect(ok.status == 202)
            #expect(try RawHTTPResponse.fetch(port: server.port, path: "/v1/devices/veh-1").status == 401)
        }

        @Test("--auth jwt without a key, or with a weak secret, stops at start with exit 2")
        func badAuthOptions() throws {
            let binary = ServerHarness.binDirectory.appendingPathComponent("stream-server")
            let missing = try CommandResult.run(binary, ["--auth", "jwt"])
            #expect(missing.status == 2 && missing.stderr.contains("--jwt-secret"))
            let weak = try CommandResult.run(binary, ["--auth", "jwt", "--jwt-secret", "short"])
            #expect(weak.status == 2 && weak.stderr.contains("--jwt-secret"))
        }
    }
}
