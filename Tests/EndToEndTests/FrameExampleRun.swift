import Foundation
import LocstreamProtocol
import TestSupport
import WebSocketTransport

/// One `frames` example of `docs/protocol.md` run against a fresh server, set up as its
/// block says: what came back, and how it differed from what the example shows.
struct FrameExampleRun {
    /// Every frame the server sent, as sent (the welcome included).
    var received: [String] = []
    /// Every frame the example sent that the server did not refuse as malformed.
    var acceptedRequests: [String] = []
    /// The differences, each naming the example's line.
    var mismatches: [String] = []

    /// Runs `example` on a new server.
    init(_ example: FrameExample) async throws {
        let block = example.block
        let jwt = block.setup["auth"] == "jwt"
        let server = try await ServerHarness(
            (jwt ? TestTokens.serverOptions() : ["--auth", "none"])
                + (block.setup["server"] ?? "").split(separator: ",").map(String.init))
        let token = try TestTokens.make(expiresIn: block.setup["token"] == "expiring" ? 20 : 600)
        for seed in block.seeds {
            let fields = example.firstLocation(of: seed.device) ?? [:]
            let location = Self.location(seed.device, fields: fields)
            try Self.publish(Array(repeating: location, count: seed.count), server: server, token: token)
        }
        let query = block.setup["token"] == "expiring" ? "?token=" + token : ""
        self = try await withWebSocketClient { client in
            let viewer = try await StreamTestClient(client, url: server.url("/v1/stream" + query))
            var run = FrameExampleRun()
            try await run.play(example, on: viewer, server: server, token: token)
            return run
        }
    }

    private init() {}

    /// Sends and checks each step, then a ping: its pong must be the next frame, so a frame
    /// the example does not show fails the run.
    private mutating func play(
        _ example: FrameExample, on viewer: StreamTestClient, server: ServerHarness, token: String
    )
        async throws
    {
        received.append(viewer.welcomeText)
        var steps = example.steps[...]
        if case .expect(let welcome, _, _)? = steps.first, case .object(let frame) = welcome,
            frame["op"] == .string("welcome")
        {
            compare(welcome, viewer.welcomeText, line: example.block.line)
            steps = steps.dropFirst()
        }
        var lastSent: String?
        for step in steps {
            switch step {
            case .send(let text):
                if let lastSent { acceptedRequests.append(lastSent) }
                let frame = Self.withToken(text, token)
                viewer.send(raw: frame)
                lastSent = frame
            case .expect(let expected, _, let live):
                if live, case .object(let fields) = expected, case .string(let device)? = fields["device"] {
                    try Self.publish([Self.location(device, fields: fields)], server: server, token: token)
                }
                guard let message = await viewer.nextRaw() else {
                    mismatches.append("line \(example.block.line): no frame came for \(expected)")
                    return
                }
                let text = String(decoding: message.bytes, as: UTF8.self)
                received.append(text)
                if compare(expected, text, line: example.block.line), Self.refusesShape(expected) { lastSent = nil }
            }
        }
        if let lastSent { acceptedRequests.append(lastSent) }
        viewer.send(raw: #"{"op":"ping","t":7.25}"#)
        let last = await viewer.nextRaw().map { String(decoding: $0.bytes, as: UTF8.self) }
        if last != #"{"op":"pong","t":7.25}"# {
            mismatches.append("line \(example.block.line): a frame the example does not show: \(last ?? "none")")
        }
    }

    /// Records how `text` differs from `expected`; returns whether it was JSON at all.
    @discardableResult
    private mutating func compare(_ expected: JSONValue, _ text: String, line: Int) -> Bool {
        guard let actual = try? JSONValue(parsing: Array(text.utf8)) else {
            mismatches.append("line \(line): not JSON: \(text)")
            return false
        }
        mismatches += FrameShape.mismatches(expected: expected, actual: actual).map { "line \(line): \($0) in \(text)" }
        return true
    }

    /// Whether `expected` is an error saying the request itself was malformed.
    private static func refusesShape(_ expected: JSONValue) -> Bool {
        guard case .object(let frame) = expected, case .string(let code)? = frame["code"] else { return false }
        return ["bad_json", "bad_request", "unknown_op", "too_large"].contains(code)
    }

    /// `text` with a token shortened with `…` replaced by `token`.
    private static func withToken(_ text: String, _ token: String) -> String {
        text.replacing(/"token":"[^"]*…"/, with: "\"token\":\"\(token)\"")
    }

    /// The location `fields` describe (a frame without op, sub and seq), or a plain one.
    private static func location(_ device: String, fields: [String: JSONValue]) -> JSONValue {
        var location = fields.filter { !["op", "sub", "seq"].contains($0.key) }
        location["device"] = .string(device)
        location["lat"] = location["lat"] ?? .number(JSONNumber(52.52))
        location["lon"] = location["lon"] ?? .number(JSONNumber(13.40))
        location["ts"] = location["ts"] ?? .integer(1_764_421_200_123)
        return .object(location)
    }

    /// Publishes `locations` over `POST /v1/locations`, which must answer 202.
    static func publish(_ locations: [JSONValue], server: ServerHarness, token: String) throws {
        let body = String(decoding: JSONValue.array(locations).encoded(), as: UTF8.self)
        let response = try RawHTTPResponse.fetch(
            port: server.port, method: "POST", path: "/v1/locations", body: body,
            headers: ["Authorization: Bearer \(token)"])
        guard response.status == 202 else { throw SeedError.refused(response.status, response.body) }
    }

    enum SeedError: Error { case refused(Int, String) }
}
