import Foundation
import LocstreamClient
import TestSupport
import Testing

extension ClientEndToEndTests {
    /// Typed errors for what retrying cannot fix, and token refresh on `token expiring`.
    @Suite("auth and refusals")
    struct AuthTests {
        @Test("forbidden and bad_request end a sequence with a typed error; publish outside the rights throws")
        func refusals() async throws {
            let server = try await ServerHarness(TestTokens.serverOptions())
            let configuration = ClientConfiguration { try TestTokens.make(devices: ["a*"], publish: ["a*"]) }
            try await ClientEndToEndTests.withClient(of: server, configuration: configuration) { client in
                await expectFailure(.forbidden) { _ = try await client.locations(of: ["b"]).collect { _ in false } }
                await expectFailure(.badRequest) { _ = try await client.locations(of: ["a/1"]).collect { _ in false } }
                await expectFailure(.forbidden) { _ = try await client.publish([testLocation("b")]) }
                let allowed = try await client.publish([testLocation("a1")])
                #expect(
                    try await client.locations(of: ["a1"]).collect(until: \.endsOpening) == [
                        .location(located("a1", seq: allowed[0])), .snapshotEnd,
                    ], "the connection still serves what the token allows")
            }
        }

        @Test("without a token: the sequence and the publish throw unauthorized")
        func noToken() async throws {
            let server = try await ServerHarness(TestTokens.serverOptions())
            try await ClientEndToEndTests.withClient(of: server) { client in
                await expectFailure(.unauthorized) { _ = try await client.locations(of: ["a"]).collect { _ in false } }
                await expectFailure(.unauthorized) { _ = try await client.publish([testLocation("a")]) }
            }
        }

        @Test(
            "token expiring: the provider's fresh token keeps the connection past the old exp",
            .timeLimit(.minutes(1)))
        func refresh() async throws {
            let server = try await ServerHarness(TestTokens.serverOptions(["--token-warning", "4"]))
            let gate = TokenGate()
            // The viewer's first token expires in 5 s, so the warning comes at once; the fresh one lasts.
            let firstExpiry = Date().addingTimeInterval(5)
            let configuration = ClientConfiguration {
                try await gate.token(expiresIn: await gate.calls == 0 ? 5 : 600)
            }
            let publisher = ClientConfiguration { try TestTokens.make() }
            try await ClientEndToEndTests.withClient(of: server, configuration: publisher) { publisher in
                try await ClientEndToEndTests.withClient(of: server, configuration: configuration) { viewer in
                    let first = try await publisher.publish([testLocation("t-1")])
                    var updates = viewer.locations(of: ["t-1"]).makeAsyncIterator()
                    let opening = try await updates.collect(until: \.endsOpening)
                    #expect(opening.count == 2)
                    // Past the first token's exp (whole seconds) the server would have closed with 1008.
                    let pastExpiry = firstExpiry.timeIntervalSinceNow + 1
                    try await Task.sleep(for: .milliseconds(Int(pastExpiry * 1000)))
                    let after = try await publisher.publish([testLocation("t-1")])
                    #expect(after[0] > first[0])
                    let next = try await updates.next()
                    #expect(next == .location(located("t-1", seq: after[0])), "no reconnect between")
                    #expect(await gate.calls == 2, "one token to connect, one on the warning")
                }
            }
        }
    }
}

/// Records an issue unless `body` throws the error of the server's `code`.
func expectFailure(
    _ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected \(code.rawValue), nothing was thrown", sourceLocation: sourceLocation)
    } catch {
        #expect((error as? LocstreamError)?.serverError?.code == code, "got \(error)", sourceLocation: sourceLocation)
    }
}
