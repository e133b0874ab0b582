import Foundation
import TestSupport
import Testing
import WebSocketTransport

extension EndToEnd {
    /// The transport end to end: the project's lws client against the real server.
    @Suite("transport, lws client against the real server")
    struct TransportTests {
        @Test("round trips through the lws client, with the sub-protocol negotiated")
        func roundTrip() async throws {
            try await ServerHarness.withClient(["--enable-echo"]) { server, client in
                let connection = try await client.connect(to: server.url("/v1/echo"))
                var messages = connection.messages.makeAsyncIterator()
                for text in ["hello", "", String(repeating: "z", count: 70_000 / 2)] {
                    connection.send(OutboundFrame(text: text))
                    #expect(await messages.next()?.text == text)
                }
                connection.send(OutboundFrame(opcode: .binary, body: [0, 1, 2, 255]))
                #expect(await messages.next() == InboundMessage(bytes: [0, 1, 2, 255], isBinary: true))
            }
        }

        @Test("a message over --max-message-bytes closes with 1009; one at the limit passes")
        func oversize() async throws {
            try await ServerHarness.withClient(["--enable-echo", "--max-message-bytes", "1000"]) { server, client in
                let connection = try await client.connect(to: server.url("/v1/echo"))
                var messages = connection.messages.makeAsyncIterator()
                connection.send(OutboundFrame(text: String(repeating: "a", count: 1000)))
                #expect(await messages.next()?.bytes.count == 1000)
                connection.send(OutboundFrame(text: String(repeating: "a", count: 1001)))
                #expect(await messages.next() == nil)
                #expect(connection.peerClose?.code == 1009)
            }
        }

        @Test("wss:// round trip with a self-signed certificate, trusted by CA file or insecure mode")
        func tls() async throws {
            let certificate = try SelfSignedCertificate()
            let server = try await ServerHarness([
                "--enable-echo", "--tls-cert", certificate.certificatePath, "--tls-key", certificate.keyPath,
            ])
            #expect(await server.logLine(containing: "tls=true") != nil)
            let trusting = try await WebSocketClient.start(caFile: certificate.certificatePath)
            let viaCA = try await trusting.connect(to: "wss://localhost:\(server.port)/v1/echo")
            var caMessages = viaCA.messages.makeAsyncIterator()
            viaCA.send(OutboundFrame(text: "over tls"))
            #expect(await caMessages.next()?.text == "over tls")
            let corked = (0..<200).map { "frame \($0) " + String(repeating: "x", count: $0 * 10) }
            for text in corked { viaCA.send(OutboundFrame(text: text)) }
            var echoed: [String] = []
            for _ in corked { echoed.append(await caMessages.next()?.text ?? "") }
            #expect(echoed == corked)
            // A backlog the client does not read for a while: lws 4.1.6 cannot pause reading
            // on TLS, so the transport must cope without rx flow control.
            for index in 0..<1000 { viaCA.send(OutboundFrame(text: "backlog \(index)")) }
            try await Task.sleep(for: .milliseconds(300))
            var backlog: [String] = []
            for _ in 0..<1000 { backlog.append(await caMessages.next()?.text ?? "") }
            #expect(backlog == (0..<1000).map { "backlog \($0)" })

            let plain = try await WebSocketClient.start()
            var insecure = ClientConnectOptions()
            insecure.insecure = true
            let viaInsecure = try await plain.connect(to: server.url("/v1/echo", scheme: "wss"), options: insecure)
            var insecureMessages = viaInsecure.messages.makeAsyncIterator()
            viaInsecure.send(OutboundFrame(text: "insecure ok"))
            #expect(await insecureMessages.next()?.text == "insecure ok")
            await #expect(throws: TransportError.self) {
                _ = try await plain.connect(to: server.url("/v1/echo", scheme: "wss"))
            }
            await #expect(throws: TransportError.self) {
                _ = try await plain.connect(to: server.url("/v1/echo"))
            }
            await trusting.shutdown()
            await plain.shutdown()
        }

        @Test("1,000 concurrent connections each get back only their own messages")
        func thousandConnections() async throws {
            try await ServerHarness.withClient(["--enable-echo"]) { server, client in
                let url = server.url("/v1/echo")
                let crossed = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<1000 {
                        group.addTask {
                            let connection = try await client.connect(to: url)
                            var messages = connection.messages.makeAsyncIterator()
                            var wrong = 0
                            for round in 0..<5 {
                                let text = "conn \(index) round \(round)"
                                connection.send(OutboundFrame(text: text))
                                if await messages.next()?.text != text { wrong += 1 }
                            }
                            connection.close(code: 1000)
                            return wrong
                        }
                    }
                    return try await group.reduce(0, +)
                }
                #expect(crossed == 0)
            }
        }

        @Test(
            "a burst of 4,000 messages, read ahead of lws's 1 KiB a turn, echoes whole and in order; a bystander keeps its round trips",
            .timeLimit(.minutes(1)))
        func burstReadAhead() async throws {
            try await ServerHarness.withClient(["--enable-echo"]) { server, client in
                let flooder = try await client.connect(to: server.url("/v1/echo"))
                let bystander = try await client.connect(to: server.url("/v1/echo"))
                var echoes = flooder.messages.makeAsyncIterator()
                var replies = bystander.messages.makeAsyncIterator()
                let burst = (0..<4000).map { "burst \($0) " + String(repeating: "y", count: $0 % 300) }
                for text in burst { flooder.send(OutboundFrame(text: text)) }
                for round in 0..<20 {
                    bystander.send(OutboundFrame(text: "bystander \(round)"))
                    #expect(await replies.next()?.text == "bystander \(round)")
                }
                var echoed: [String] = []
                for _ in burst { echoed.append(await echoes.next()?.text ?? "") }
                #expect(echoed == burst)
                #expect(flooder.peerClose == nil)
            }
        }

        @Test(
            "SIGTERM, SIGINT and SIGHUP close every client with 1001 and the process exits 0",
            arguments: [
                (SIGTERM, "SIGTERM"), (SIGINT, "SIGINT"), (SIGHUP, "SIGHUP"),
            ])
        func gracefulShutdown(signal: Int32, name: String) async throws {
            try await ServerHarness.withClient(["--enable-echo"]) { server, client in
                var connections: [WebSocketConnection] = []
                for _ in 0..<20 { connections.append(try await client.connect(to: server.url("/v1/echo"))) }
                #expect(await server.stop(signal: signal) == 0)
                for connection in connections {
                    for await _ in connection.messages {}
                    #expect(connection.peerClose?.code == 1001)
                }
                #expect(await server.logLine(containing: "shutting down")?.contains(name) == true)
                #expect(await server.logLine(containing: "stopped") != nil)
            }
        }

        @Test("an upgrade to an unknown path is refused, and /v1/echo is off unless enabled")
        func refusedUpgrades() async throws {
            try await ServerHarness.withClient { server, client in
                await #expect(throws: TransportError.self) { _ = try await client.connect(to: server.url("/v1/echo")) }
                await #expect(throws: TransportError.self) { _ = try await client.connect(to: server.url("/nowhere")) }
                let raw = try RawWebSocket(port: server.port, path: "/nowhere")
                #expect(raw.handshake.hasPrefix("HTTP/1.") && raw.handshake.contains(" 404 "))
            }
        }
    }
}
