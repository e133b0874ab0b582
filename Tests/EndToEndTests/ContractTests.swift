import Foundation
import TestSupport
import Testing

extension EndToEnd {
    /// The machine-readable contract: `docs/schema`, `docs/openapi.json` and
    /// `docs/asyncapi.json` are valid, the node serves them, and what a real server sends
    /// fits them.
    @Suite("machine-readable contract")
    struct ContractTests {
        @Test("the schemas, the OpenAPI and the AsyncAPI documents are valid and their $refs resolve")
        func documents() throws {
            let result = try ContractChecker().checkDocuments()
            #expect(result.passed, "\(result.report)")
        }

        @Test("the HTTP bodies and JSON examples of docs/protocol.md fit the schemas")
        func documentedBodies() throws {
            var checker = try ContractChecker()
            var count = 0
            for block in try DocBlock.protocolGuide() {
                let label = "docs/protocol.md:\(block.line)"
                if let schema = block.setup["schema"] {
                    checker.add(
                        HTTPExample(block)?.body ?? block.lines.joined(separator: "\n"), schema: schema, label: label)
                } else if let operation = block.setup["op"]?.split(separator: ":", maxSplits: 1),
                    operation.count == 2, let answer = HTTPExample(block)
                {
                    checker.add(
                        body: answer.body, method: String(operation[0]), path: String(operation[1]),
                        status: answer.status, label: label)
                } else {
                    continue
                }
                count += 1
            }
            #expect(count >= 9, "the examples were not found")
            let result = try checker.checkInstances()
            #expect(result.passed, "\(result.report)")
        }

        @Test("the schemas refuse the client frames the server refuses as malformed")
        func refusedFrames() async throws {
            var checker = try ContractChecker()
            try await ServerHarness.withClient(TestTokens.serverOptions(["--error-budget", "1000"])) { server, client in
                let viewer = try await StreamTestClient(client, url: server.url("/v1/stream"))
                viewer.send(raw: #"{"op":"auth","token":"\#(try TestTokens.make(areas: true))"}"#)
                #expect(
                    await viewer.nextRaw().map { String(decoding: $0.bytes, as: UTF8.self) }?.contains("authed") == true
                )
                for (frame, code) in RefusedFrames.all {
                    viewer.send(raw: frame)
                    #expect(await viewer.nextError()?.code.rawValue == code, "\(frame.prefix(100))")
                    checker.add(frame, schema: "client-message.json", label: String(frame.prefix(100)), valid: false)
                }
            }
            let result = try checker.checkInstances()
            #expect(result.passed, "\(result.report)")
        }

        @Test("the node serves /v1/openapi.json, /v1/asyncapi.json and /v1/schema/* as docs/ has them")
        func served() async throws {
            let server = try await ServerHarness()
            let docs = DeployTools.root.appendingPathComponent("docs")
            let schemas = try FileManager.default.contentsOfDirectory(
                atPath: docs.appendingPathComponent("schema").path)
            #expect(schemas.count >= 20)
            for name in ["openapi.json", "asyncapi.json"] + schemas.map({ "schema/" + $0 }) {
                let file = try String(contentsOf: docs.appendingPathComponent(name), encoding: .utf8)
                let response = try RawHTTPResponse.fetch(port: server.port, path: "/v1/" + name)
                #expect(response.status == 200, "/v1/\(name)")
                #expect(response.header("content-type") == "application/json")
                #expect(response.body + "\n" == file, "/v1/\(name) is not docs/\(name)")
            }
            let head = try RawHTTPResponse.fetch(port: server.port, method: "HEAD", path: "/v1/openapi.json")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(try RawHTTPResponse.fetch(port: server.port, path: "/v1/schema/nope.json").status == 404)
            let post = try RawHTTPResponse.fetch(
                port: server.port, method: "POST", path: "/v1/asyncapi.json", body: "{}")
            #expect(post.status == 405 && post.header("allow") == "GET, HEAD")
        }

        @Test("every frame of a session through every op, and every HTTP answer, fits the schemas")
        func realOutput() async throws {
            var checker = try ContractChecker()
            let server = try await ServerHarness(
                TestTokens.serverOptions(["--publish-rate=1", "--publish-burst=20", "--max-devices=2"]))
            let frames = try await ContractSession.frames(server: server)
            let ops = Set(frames.compactMap { $0.firstMatch(of: /"op":"([a-z]+)"/).map { String($0.output.1) } })
            let all: Set = [
                "welcome", "authed", "subscribed", "loc", "leave", "unsubscribed", "published", "pong", "error",
            ]
            #expect(ops == all, "the session saw \(ops.sorted())")
            for frame in frames { checker.add(frame, schema: "server-message.json", label: "session") }
            for answer in try ContractSession.httpAnswers(server: server) {
                checker.add(body: answer.body, method: answer.method, path: answer.path, status: answer.status)
            }
            let result = try checker.checkInstances()
            #expect(result.passed, "\(result.report)")
        }
    }
}
